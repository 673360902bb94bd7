import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { columnsOf, type ColumnOf, type TableSpec } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { unitsOf } from '../../../src/domain/shared/Decimal.js';
import type { StoredFile } from '../../../src/domain/shared/files.js';
import { fileToColumn } from '../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';

/** The id the repository contract's referenced row has (its TARGET): samples of a `ref` field name it. */
export const REFERENCED_ID = '00000000-0000-4000-8000-00000000fff0';

const knexOf = (orm: MikroORM) => (orm.em.getConnection() as AbstractSqlConnection).getKnex();

/** Every table of the database but the migrator's own record. */
async function tablesOf(orm: MikroORM): Promise<string[]> {
  const knex = knexOf(orm);
  const rows = (
    knex.client.dialect === 'postgresql'
      ? (
          await knex.raw(
            "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
          )
        ).rows
      : await knex.raw("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
  ) as { name: string }[];
  return rows.map((row) => row.name).filter((name) => name !== 'mikro_orm_migrations');
}

/**
 * Deletes every row of every table of the database but the migrator's record, whatever the
 * references between them: a table another still references is emptied on a later pass.
 * PostgreSQL's test database is shared by every suite, so each test starts from nothing.
 */
export async function clearResourceTables(orm: MikroORM): Promise<void> {
  let tables = await tablesOf(orm);
  for (let pass = 0; tables.length > 0; pass += 1) {
    const left: string[] = [];
    for (const table of tables) {
      await knexOf(orm)(table)
        .delete()
        .catch((error: unknown) => {
          if (pass >= tables.length) throw error;
          left.push(table);
        });
    }
    tables = left;
  }
}

/** A props value in the column form the driver stores (SQLite: epoch milliseconds, 0/1, a decimal's smallest unit). */
function driverValue(column: ColumnOf, value: unknown, sqlite: boolean): unknown {
  if (column.kind === 'file' && value !== null && value !== undefined) return fileToColumn(value as StoredFile);
  if (!sqlite || value === null || value === undefined) return value;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'boolean') return Number(value);
  if (column.kind === 'decimal') return Number(unitsOf(String(value), column.spec?.scale ?? 0));
  return value;
}

/** Inserts rows given as entity props (camel case) straight into `table`'s table, in chunks, in the driver's column forms. */
export async function insertRows(
  orm: MikroORM,
  table: TableSpec,
  rows: readonly object[],
  sqlite: boolean,
): Promise<void> {
  const columns = columnsOf(table);
  const driverRows = rows.map((row) =>
    Object.fromEntries(
      columns.map((column) => [
        column.name,
        driverValue(column, (row as Record<string, unknown>)[column.prop], sqlite),
      ]),
    ),
  );
  for (let start = 0; start < driverRows.length; start += 200)
    await knexOf(orm)(table.table).insert(driverRows.slice(start, start + 200));
}
