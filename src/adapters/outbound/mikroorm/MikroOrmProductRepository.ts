import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import { Product } from '../../../domain/product/Product.js';
import { ProductNotFoundError, ProductVersionConflictError } from '../../../domain/product/ProductErrors.js';
import type { ProductListQuery, ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
import { offsetOf, type Page } from '../../../domain/shared/Page.js';
import { guarded } from './errors.js';
import { readOne } from './fastRead.js';
import { globContainsAnyCase, likeContains } from './like.js';
import { ProductSchema, type ProductRow } from './schemas/ProductSchema.js';

const SORT_PROPERTY: Record<ProductSortField, keyof ProductRow> = {
  name: 'name',
  price: 'price',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
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
    return guarded(async () => {
      await this.em().insert(ProductSchema, product.toProps());
    });
  }

  /** The hot read: one prepared statement, no entity hydration (it is mapped to the domain anyway). */
  findById(id: string): Promise<Product | undefined> {
    return guarded(async () => {
      const row = await readOne<RawProductRow>(this.orm, 'select id, name, price, version, created_at, updated_at from products where id = ?', [id]);
      return row ? toProduct({ id: row.id, name: row.name, price: row.price, version: row.version, createdAt: row.created_at, updatedAt: row.updated_at }) : undefined;
    });
  }

  update(product: Product): Promise<void> {
    return guarded(async () => {
      const em = this.em();
      const { id, createdAt: _createdAt, ...changes } = product.toProps();
      const affected = await em.nativeUpdate(ProductSchema, { id, version: product.version - 1 }, changes);
      if (affected === 1) return;
      const exists = await em.count(ProductSchema, { id });
      throw exists > 0 ? new ProductVersionConflictError(id) : new ProductNotFoundError(id);
    });
  }

  delete(id: string): Promise<boolean> {
    return guarded(async () => (await this.em().nativeDelete(ProductSchema, { id })) > 0);
  }

  /**
   * Two steps ("deferred join"): the page's ids come from the (sort column, id) index alone —
   * an index-only scan even deep into the list — then only those rows are read. A plain
   * `select * … offset n` makes PostgreSQL sort the whole table once n is large.
   */
  list(query: ProductListQuery): Promise<Page<Product>> {
    return guarded(async () => {
      const em = this.em();
      const qb = em.createQueryBuilder(ProductSchema, 'p');
      if (query.q) {
        if (em.getKnex().client.dialect === 'postgresql') qb.where(`lower(p.name) like ? escape '!'`, [likeContains(query.q)]);
        else qb.where('p.name glob ?', [globContainsAnyCase(query.q)]);
      }
      const total = await qb.clone().getCount();
      if (total <= offsetOf(query)) return { items: [], total, page: query.page, perPage: query.perPage };
      const ids = (
        await qb
          .select('p.id')
          .orderBy([{ [SORT_PROPERTY[query.sort]]: query.order }, { id: query.order }])
          .limit(query.perPage)
          .offset(offsetOf(query))
          .execute<{ id: string }[]>('all', false)
      ).map((row) => row.id);
      const position = new Map(ids.map((id, index) => [id, index]));
      const rows = await em.find(ProductSchema, { id: { $in: ids } }, { disableIdentityMap: true });
      rows.sort((a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0));
      return { items: rows.map(toProduct), total, page: query.page, perPage: query.perPage };
    });
  }
}
