import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlDriver, Knex } from '@mikro-orm/knex';
import type { Migration } from '@mikro-orm/migrations';

/** A migration class as MikroORM instantiates it. */
export type MigrationClass = new (driver: AbstractSqlDriver, config: MikroORM['config']) => Migration;

/**
 * Runs one migration's `up` (or `down`) statements in `trx`, outside the migrator (which would
 * record it as done): so a test can run a migration again, inside a transaction it rolls back.
 */
export async function runMigration(
  orm: MikroORM,
  migration: MigrationClass,
  trx: Knex | Knex.Transaction,
  direction: 'up' | 'down' = 'up',
): Promise<void> {
  const instance = new migration(orm.em.getDriver() as AbstractSqlDriver, orm.config);
  await instance[direction]();
  for (const query of instance.getQueries()) {
    if (typeof query === 'string') {
      await trx.raw(query);
    } else {
      const { sql, bindings } = query.toSQL();
      await trx.raw(sql, bindings as Knex.RawBinding[]);
    }
  }
}
