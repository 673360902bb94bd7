import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import { Product } from '../../../domain/product/Product.js';
import { ProductNotFoundError, ProductVersionConflictError } from '../../../domain/product/ProductErrors.js';
import type { ProductListQuery, ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
import { offsetOf, type Page } from '../../../domain/shared/Page.js';
import { guarded } from './errors.js';
import { isPostgres, readAll, readAllWalkingIndex, readOne } from './fastRead.js';
import { globContainsAnyCase, likeContains } from './like.js';
import { ProductSchema, type ProductRow } from './schemas/ProductSchema.js';

const SORT_COLUMN: Record<ProductSortField, string> = {
  name: 'name',
  price: 'price',
  created_at: 'created_at',
  updated_at: 'updated_at',
};

/** A `products` row as the driver returns it (timestamps: numbers on SQLite, Dates on PostgreSQL). */
interface RawProductRow {
  id: string;
  name: string;
  price: number;
  version: number;
  created_at: Date | number | string;
  updated_at: Date | number | string;
}

const toProduct = (row: Omit<ProductRow, 'createdAt' | 'updatedAt'> & { createdAt: Date | number | string; updatedAt: Date | number | string }): Product =>
  Product.restore({
    id: row.id,
    name: row.name,
    price: Number(row.price),
    version: Number(row.version),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  });

const fromRaw = (row: RawProductRow): Product =>
  toProduct({ id: row.id, name: row.name, price: row.price, version: row.version, createdAt: row.created_at, updatedAt: row.updated_at });

/**
 * Products in SQLite or PostgreSQL. Updates are `UPDATE … WHERE id = ? AND version = ?`, so a
 * write based on a stale read changes nothing and is reported as a conflict.
 */
export class MikroOrmProductRepository implements ProductRepository {
  constructor(private readonly orm: MikroORM) {}

  private em(): EntityManager {
    return this.orm.em.fork() as EntityManager;
  }

  add(product: Product): Promise<void> {
    return guarded(this.orm, async () => {
      await this.em().insert(ProductSchema, product.toProps());
    });
  }

  /** The hot read: one prepared statement, no entity hydration (it is mapped to the domain anyway). */
  findById(id: string): Promise<Product | undefined> {
    return guarded(this.orm, async () => {
      const row = await readOne<RawProductRow>(this.orm, 'select id, name, price, version, created_at, updated_at from products where id = ?', [id]);
      return row ? fromRaw(row) : undefined;
    });
  }

  update(product: Product): Promise<void> {
    return guarded(this.orm, async () => {
      const em = this.em();
      const { id, createdAt: _createdAt, ...changes } = product.toProps();
      const affected = await em.nativeUpdate(ProductSchema, { id, version: product.version - 1 }, changes);
      if (affected === 1) return;
      const exists = await em.count(ProductSchema, { id });
      throw exists > 0 ? new ProductVersionConflictError(id) : new ProductNotFoundError(id);
    });
  }

  delete(id: string): Promise<boolean> {
    return guarded(this.orm, async () => (await this.em().nativeDelete(ProductSchema, { id })) > 0);
  }

  /**
   * A count, then the page as a "deferred join": its ids come from the (sort column, id) index
   * alone — an index-only scan even deep into the list — and only those rows are read. A plain
   * `select * … offset n` sorts the whole table once n is large. On SQLite both steps are one
   * prepared statement; on PostgreSQL the ids are read with the index walk enforced (see
   * `readAllWalkingIndex`). Sort columns come from a fixed map, never from input.
   */
  list(query: ProductListQuery): Promise<Page<Product>> {
    return guarded(this.orm, async () => {
      const postgres = isPostgres(this.orm);
      let where = '';
      const filter: string[] = [];
      if (query.q) {
        where = postgres ? `where lower(name) like ? escape '!'` : 'where name glob ?';
        filter.push(postgres ? likeContains(query.q) : globContainsAnyCase(query.q));
      }
      const counted = await readOne<{ total: number | string }>(this.orm, `select count(*) as total from products ${where}`, filter);
      const total = Number(counted?.total ?? 0);
      if (total <= offsetOf(query)) return { items: [], total, page: query.page, perPage: query.perPage };
      const column = SORT_COLUMN[query.sort];
      const direction = query.order === 'asc' ? 'asc' : 'desc';
      const pageIds = `select id from products ${where} order by ${column} ${direction}, id ${direction} limit ? offset ?`;
      let rows: RawProductRow[];
      if (postgres) {
        // Two statements: the ids by walking the index, then those rows by primary key.
        const ids = (await readAllWalkingIndex<{ id: string }>(this.orm, pageIds, [...filter, query.perPage, offsetOf(query)])).map((r) => r.id);
        const position = new Map(ids.map((id, index) => [id, index]));
        rows = await readAll<RawProductRow>(
          this.orm,
          `select id, name, price, version, created_at, updated_at from products where id in (${ids.map(() => '?').join(', ')})`,
          ids,
        );
        rows.sort((a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0));
      } else {
        // `id in (page ids)` makes SQLite look each row up by key (a join would scan `products`).
        rows = await readAll<RawProductRow>(
          this.orm,
          `select id, name, price, version, created_at, updated_at from products
           where id in (${pageIds}) order by ${column} ${direction}, id ${direction}`,
          [...filter, query.perPage, offsetOf(query)],
        );
      }
      return { items: rows.map(fromRaw), total, page: query.page, perPage: query.perPage };
    });
  }
}
