import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import { expect } from 'chai';
import { productsChanged } from '../../../support/resources/productBodies.js';
import { Migration0002Products } from '../../../../src/adapters/outbound/mikroorm/migrations/Migration0002Products.js';
import { createResourceTable, orderByOf } from '../../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { tableOf } from '../../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { Product } from '../../../../src/domain/product/Product.js';

const PRODUCT_TABLE = tableOf(Product);
import { createPartsTable, dropPartsTable, PART_SORT_FIELDS, PART_TABLE } from '../../../support/parts.js';
import { SqlDatabaseFixture, sqlTargets } from '../contracts/databases.js';
import { runMigration } from './migrationQueries.js';

/**
 * The statements of Migration0002Products as first released, written by hand before the migration
 * was generated on createResourceTable; frozen here, because databases created by it exist: the
 * generated migration must create exactly the same schema.
 */
function releasedProductsMigration(knex: Knex): string[] {
  const statements = knex.schema
    .createTable('products', (t) => {
      t.string('id', 36).primary();
      t.string('name', 200).notNullable();
      t.double('price').notNullable();
      t.integer('version').notNullable().defaultTo(1);
      t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
      t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
      t.index(['name', 'id'], 'products_name_id_index');
      t.index(['price', 'id'], 'products_price_id_index');
      t.index(['created_at', 'id'], 'products_created_at_id_index');
      t.index(['updated_at', 'id'], 'products_updated_at_id_index');
    })
    .toSQL()
    .map((statement) => statement.sql);
  if (knex.client.dialect === 'postgresql') {
    statements.push(`do $$ begin
  create extension if not exists pg_trgm;
exception when others then
  raise notice 'pg_trgm is not available: product search will scan';
end $$;`);
    statements.push(`do $$ begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    execute 'create index products_name_trgm_index on products using gin (lower(name) gin_trgm_ops)';
  end if;
end $$;`);
  }
  return statements;
}

/** The table's columns and indexes as the engine reports them. */
async function schemaOf(knex: Knex | Knex.Transaction, table: string, postgres: boolean): Promise<unknown> {
  if (!postgres) {
    return await knex.raw(`select type, name, sql from sqlite_master where tbl_name = ? order by type, name`, [table]);
  }
  const columns = await knex.raw(
    `select column_name, data_type, is_nullable, column_default, character_maximum_length, datetime_precision
     from information_schema.columns where table_name = ? order by ordinal_position`,
    [table],
  );
  const indexes = await knex.raw(`select indexname, indexdef from pg_indexes where tablename = ? order by indexname`, [
    table,
  ]);
  return { columns: columns.rows, indexes: indexes.rows };
}

/** Rolls a piece of DDL back (both engines' DDL is transactional). */
async function rolledBack<T>(knex: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  let result: T | undefined;
  await knex
    .transaction(async (trx) => {
      result = await work(trx);
      throw new Error('rollback');
    })
    .catch((error: Error) => {
      if (error.message !== 'rollback') throw error;
    });
  return result as T;
}

describe('createResourceTable and the sort indexes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-tables-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'tables.sqlite')) {
    describe(`on ${target.name}`, function () {
      const database = new SqlDatabaseFixture(target);
      const postgres = target.name.startsWith('PostgreSQL');
      const knex = () => (database.db.orm.em.getConnection() as AbstractSqlConnection).getKnex();

      before(async function () {
        const skipped = await database.open();
        if (skipped !== undefined) {
          console.log(`      (skipped: ${skipped})`);
          this.skip();
        }
        await database.clear();
        await createPartsTable(database.db.orm);
      });
      after(async () => {
        if (target.url()) await dropPartsTable(database.db.orm).catch(() => undefined);
        await database.close();
      });

      /** The `products` schema after dropping the table and running `create` instead, rolled back. */
      const recreated = (create: (trx: Knex.Transaction) => Promise<void>) =>
        rolledBack(knex(), async (trx) => {
          await trx.raw('drop table products');
          await create(trx);
          return schemaOf(trx, 'products', postgres);
        });

      it('Migration0002Products (generated) creates exactly the table and indexes it created as first released', async function () {
        if (await productsChanged()) this.skip();
        await dropPartsTable(database.db.orm);
        const released = await recreated(async (trx) => {
          for (const statement of releasedProductsMigration(knex())) await trx.raw(statement);
        });
        const generated = await recreated((trx) => runMigration(database.db.orm, Migration0002Products, trx));
        expect(generated).to.deep.equal(released);
        expect(JSON.stringify(released)).to.contain('products_price_id_index');
        await createPartsTable(database.db.orm);
      });

      it("createResourceTable of the repository's PRODUCT_TABLE creates that same schema", async function () {
        if (await productsChanged()) this.skip();
        await dropPartsTable(database.db.orm);
        const released = await recreated(async (trx) => {
          for (const statement of releasedProductsMigration(knex())) await trx.raw(statement);
        });
        const declared = await recreated(async (trx) => {
          for (const statement of createResourceTable(knex(), PRODUCT_TABLE)) await trx.raw(statement);
        });
        expect(declared).to.deep.equal(released);
        await createPartsTable(database.db.orm);
      });

      for (const field of PART_SORT_FIELDS) {
        for (const descending of [false, true]) {
          it(`reads a deep page of ids by ${field} ${descending ? 'desc' : 'asc'} by walking an index, never sorting`, async () => {
            const sql = `select id from test_parts order by ${orderByOf(PART_TABLE, field, descending)} limit 100 offset 5000`;
            if (postgres) {
              const plan = await knex().transaction(async (trx) => {
                await trx.raw('set local enable_sort = off');
                return ((await trx.raw(`explain ${sql}`)) as { rows: { 'QUERY PLAN': string }[] }).rows
                  .map((r) => r['QUERY PLAN'])
                  .join('\n');
              });
              expect(plan).to.match(/Index (Only )?Scan( Backward)? using test_parts_\w+_index/);
              expect(plan).to.not.match(/\bSort\b/);
            } else {
              const rows = (await knex().raw(`explain query plan ${sql}`)) as { detail: string }[];
              const plan = rows.map((r) => r.detail).join('\n');
              expect(plan).to.match(/USING (COVERING )?INDEX test_parts_\w+_index/);
              expect(plan).to.not.match(/TEMP B-TREE/);
            }
          });
        }
      }
    });
  }
});
