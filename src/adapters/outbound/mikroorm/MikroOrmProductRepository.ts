import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection, EntityManager } from '@mikro-orm/knex';
import { Product } from '../../../domain/product/Product.js';
import type { ProductChange, ProductListQuery, ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
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

const SELECT_ONE = 'select id, name, price, version, created_at, updated_at from products where id = ?';
const UPDATE_ONE = 'update products set name = ?, price = ?, version = ?, updated_at = ? where id = ?';

/** The part of a libsql connection (better-sqlite3's API: synchronous) an update uses. */
interface LibSqlConnection {
  readonly inTransaction: boolean;
  exec(sql: string): void;
  prepare(sql: string): { get(...params: unknown[]): unknown; run(...params: unknown[]): unknown };
}

/** The pool of the ORM's knex client: one connection on SQLite, several on PostgreSQL. */
interface PoolingClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
}

/**
 * Products in SQLite or PostgreSQL. An update is a read-modify-write in one transaction that
 * holds the row's write lock from the read on (see ADR 0013): `select … for update` on
 * PostgreSQL, `begin immediate` on SQLite. Concurrent updates queue instead of failing.
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

  update(id: string, change: ProductChange): Promise<Product | undefined> {
    return guarded(this.orm, () => (isPostgres(this.orm) ? this.updateOnPostgres(id, change) : this.updateOnSqlite(id, change)));
  }

  /**
   * `select … for update` takes the row lock; a concurrent update waits for the commit, then
   * reads the row as committed (read committed), so it applies its change on top.
   */
  private async updateOnPostgres(id: string, change: ProductChange): Promise<Product | undefined> {
    const knex = (this.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    return knex.transaction(async (trx) => {
      const { rows } = (await trx.raw(`${SELECT_ONE} for update`, [id])) as { rows: RawProductRow[] };
      if (rows[0] === undefined) return undefined;
      const current = fromRaw(rows[0]);
      const next = change(current);
      if (next !== current) await trx.raw(UPDATE_ONE, [next.name, next.price, next.version, next.updatedAt, id]);
      return next;
    });
  }

  /**
   * `begin immediate` takes the database's write lock before the read (a deferred `begin` would
   * read first and could fail with SQLITE_BUSY on upgrading, past any busy timeout, if another
   * process wrote in between); other processes wait up to the busy timeout. The driver is
   * synchronous and the pool has one connection, so within the process nothing interleaves.
   * Timestamps are stored as epoch milliseconds, as the ORM writes them.
   */
  private async updateOnSqlite(id: string, change: ProductChange): Promise<Product | undefined> {
    const client = (this.orm.em.getConnection() as AbstractSqlConnection).getKnex().client as PoolingClient;
    const connection = (await client.acquireConnection()) as LibSqlConnection;
    try {
      connection.exec('begin immediate');
      try {
        const row = connection.prepare(SELECT_ONE).get(id) as RawProductRow | undefined;
        const current = row ? fromRaw(row) : undefined;
        const next = current ? change(current) : undefined;
        if (next && next !== current) {
          connection.prepare(UPDATE_ONE).run(next.name, next.price, next.version, next.updatedAt.getTime(), id);
        }
        connection.exec('commit');
        return next;
      } catch (error) {
        if (connection.inTransaction) connection.exec('rollback');
        throw error;
      }
    } finally {
      await client.releaseConnection(connection);
    }
  }

  delete(id: string, onlyAtVersions?: readonly number[]): Promise<boolean> {
    return guarded(this.orm, async () => {
      if (onlyAtVersions?.length === 0) return false;
      const where = onlyAtVersions === undefined ? { id } : { id, version: { $in: [...onlyAtVersions] } };
      return (await this.em().nativeDelete(ProductSchema, where)) > 0;
    });
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
