import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { createResourceTable, tableOf } from '../../src/adapters/outbound/mikroorm/resourceTable.js';
import type { Database } from '../../src/adapters/outbound/mikroorm/database.js';
import { declareResource, entityOf, field } from '../../src/domain/shared/resource.js';
import { resourceModule } from '../../src/main/modules/resource.js';
import { MODULES } from '../../src/main/modules/index.js';
import type { FeatureModule } from '../../src/main/modules/FeatureModule.js';

/**
 * Two resources declared `cached`: memos (every user reads them) and diary entries (owned: each
 * user reads only their own). Tests only: served beside the module list by the cache suites, their
 * tables made by `createCachedTables`.
 */
export const MEMO = declareResource({
  name: 'memo',
  plural: 'memos',
  fields: { title: field.string(1, 80) },
  cached: true,
});
export const DIARY_ENTRY = declareResource({
  name: 'diary_entry',
  plural: 'diary_entries',
  fields: { text: field.string(1, 200) },
  owned: true,
  cached: true,
});
export class Memo extends entityOf(MEMO) {}
export class DiaryEntry extends entityOf(DIARY_ENTRY) {}

/** The module list with the two cached resources served after it. */
export const CACHED_MODULES: readonly FeatureModule[] = [...MODULES, resourceModule(Memo), resourceModule(DiaryEntry)];

/** The shipped rules, and theirs: `user` reads memos, and reads and writes their own diary entries. */
export const CACHED_POLICY = [
  'p, admin, /api/v1/*, .*',
  'p, admin, /api/v1/admin/*, .*',
  'p, user, /api/v1/profile, GET|PUT',
  'p, user, /api/v1/memos, GET',
  'p, user, /api/v1/memos/{id}, GET',
  'p, user, /api/v1/diary-entries, GET|POST, own',
  'p, user, /api/v1/diary-entries/{id}, GET|PUT|DELETE, own',
  'g, admin, moderator',
  'g, moderator, user',
].join('\n');

/** Makes the two tables afresh in the service's database (their rows gone). */
export async function createCachedTables(database: Database): Promise<void> {
  const knex = (database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
  for (const entity of [DiaryEntry, Memo]) {
    await knex.schema.dropTableIfExists(entity.declaration.plural);
    for (const statement of createResourceTable(knex, tableOf(entity as never))) await knex.raw(statement);
  }
}

/** Counts the statements `database` runs that read or write one row of `table` (the SQL executor's). */
export function countRowStatements(
  database: Database,
  table: string,
  id: string,
): { count: () => number; stop: () => void } {
  const sql = database.sql as unknown as Record<
    'one' | 'all' | 'run',
    (q: string, p?: readonly unknown[]) => Promise<unknown>
  >;
  const originals = { one: sql.one, all: sql.all, run: sql.run };
  let count = 0;
  for (const method of ['one', 'all', 'run'] as const) {
    const original = originals[method];
    sql[method] = (query: string, params?: readonly unknown[]) => {
      if (query.includes(table) && (params ?? []).includes(id)) count += 1;
      return original.call(database.sql, query, params);
    };
  }
  return {
    count: () => count,
    stop: () => {
      for (const method of ['one', 'all', 'run'] as const) sql[method] = originals[method];
    },
  };
}
