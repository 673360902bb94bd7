import { Migration } from '@mikro-orm/migrations';
import { formatUnits } from '../../../../domain/shared/Decimal.js';
import type { ColumnOf } from '../resourceTable.js';
import {
  changeResourceTable,
  changedFields,
  duplicateQuery,
  madeUnique,
  type TableChange,
} from '../resourceTableChange.js';
import { grantResourceAccess, revokeResourceAccess, type AccessGrant } from './accessRules.js';

/** The access rules a table change brings and takes back (a nested list's, when a reference comes or goes). */
export interface AccessChange {
  readonly grant?: readonly AccessGrant[];
  readonly revoke?: readonly AccessGrant[];
}

const postgresOf = (migration: Migration): boolean => migration.getKnex().client.dialect === 'postgresql';

/** The change that undoes `change`, or why there is none (a required field removed: its values are gone). */
function reversed(change: TableChange): TableChange | string {
  const lost = changedFields(change).removed.filter((c) => !c.optional);
  if (lost.length > 0)
    return `${change.before.table}: ${lost.map((c) => c.name).join(', ')} cannot be put back (the values were dropped)`;
  return { before: change.after, after: change.before };
}

/** A stored value as the API shows it (SQLite keeps times as epoch milliseconds and decimals as a count of units). */
function shown(column: ColumnOf, value: unknown): string {
  if (column.kind === 'datetime' && (typeof value === 'number' || value instanceof Date))
    return new Date(value).toISOString();
  if (column.kind === 'decimal' && (typeof value === 'number' || typeof value === 'bigint'))
    return formatUnits(value, column.spec?.scale ?? 0);
  return String(value);
}

/**
 * The class of a migration that changes a resource's table (`generate field`, `generate
 * migration`): `export class Migration20261127T0512InvoicesAddDueAt extends tableChangeMigration(CHANGE) {}`.
 * Its `change` says what it does (the generator reads it back to know what the migrations so far
 * make). On PostgreSQL it runs in the migrator's transaction. On SQLite a change that rebuilds the
 * table runs on its own: foreign keys off (a rebuild drops a table other rows may refer to), the
 * statements in one transaction, the foreign keys checked before it commits, then back on.
 * `access` grants and takes back access rules on a database seeded before (a nested list's, when a
 * reference comes or goes). A field made unique while stored rows share a value fails the
 * migration, naming the field and that value, before anything is changed. `down` undoes it all,
 * unless a required field was removed (its values are gone).
 */
export function tableChangeMigration(change: TableChange, access: AccessChange = {}) {
  return class TableChangeMigration extends Migration {
    static readonly change: TableChange = change;
    static readonly access: AccessChange = access;

    override isTransactional(): boolean {
      return postgresOf(this) || !changeResourceTable(this.getKnex(), change).rebuild;
    }

    override async up(): Promise<void> {
      await this.apply(change);
      grantResourceAccess(this, access.grant ?? []);
      revokeResourceAccess(this, access.revoke ?? []);
    }

    override async down(): Promise<void> {
      const undo = reversed(change);
      if (typeof undo === 'string') throw new Error(`This migration cannot be reverted: ${undo}`);
      await this.apply(undo);
      grantResourceAccess(this, access.revoke ?? []);
      revokeResourceAccess(this, access.grant ?? []);
    }

    /**
     * Throws, before any change, when a field `what` makes unique has a value more than one stored
     * row holds: a kept field's stored values, or an added field's default given to every stored row.
     */
    private async refuseDuplicates(what: TableChange): Promise<void> {
      const table = what.after.table;
      const added = new Set(changedFields(what).added.map((c) => c.name));
      for (const column of madeUnique(what)) {
        let duplicate: { value: unknown; rows: number } | undefined;
        if (!added.has(column.name)) {
          const [found] = await this.execute(duplicateQuery(table, column.name));
          if (found) duplicate = { value: found.value, rows: Number(found.rows) };
        } else {
          const value = what.defaults?.[column.prop];
          const [count] = await this.execute(`select count(*) as "rows" from "${table}"`);
          const rows = Number(count?.rows ?? 0);
          if (value !== undefined && rows > 1) duplicate = { value, rows };
        }
        if (duplicate)
          throw new Error(
            `${table}.${column.name} cannot be made unique: ${duplicate.rows} rows hold the value ${JSON.stringify(shown(column, duplicate.value))}; make the values unique, then migrate again (nothing was changed)`,
          );
      }
    }

    private async apply(what: TableChange): Promise<void> {
      await this.refuseDuplicates(what);
      const { statements, rebuild } = changeResourceTable(this.getKnex(), what);
      if (postgresOf(this) || !rebuild) {
        for (const statement of statements) this.addSql(statement);
        return;
      }
      await this.execute('pragma foreign_keys = off');
      try {
        await this.driver.getConnection().transactional(async (tx) => {
          for (const statement of statements) await this.driver.execute(statement, [], 'run', tx);
          const broken = await this.driver.execute<{ table: string; parent: string }[]>(
            'pragma foreign_key_check',
            [],
            'all',
            tx,
          );
          if (broken.length > 0) {
            const [first] = broken;
            throw new Error(
              `${what.after.table}: ${broken.length} row(s) would name a missing row of ${first?.parent ?? 'another table'}; nothing was changed`,
            );
          }
        });
      } finally {
        await this.execute('pragma foreign_keys = on');
      }
    }
  };
}
