import type { SingleUseRecord, SingleUseRecords } from '../../../application/ports/SingleUseRecords.js';
import type { Database } from './database.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { guarded } from './errors.js';
import type { SqlParam } from './sqlExecutor.js';

/** A row as a raw read returns it (timestamps: numbers on SQLite, Dates on PostgreSQL). */
export type SingleUseRow = Record<string, unknown> & {
  selector: string;
  verifier_hash: string;
  created_at: Date | number | string;
  expires_at: Date | number | string;
};

/**
 * Where one kind of single-use record lives: its table (with `selector`, `verifier_hash`,
 * `created_at`, `expires_at` and `spent_at` columns) and its own columns, written and read back.
 */
export interface SingleUseTable<T extends SingleUseRecord> {
  readonly table: string;
  /** The record's own columns, in the order of `values`. */
  readonly columns: readonly string[];
  values(record: T): SqlParam[];
  /** The record's own fields from a row. */
  read(row: SingleUseRow): Omit<T, keyof SingleUseRecord>;
}

/**
 * Single-use records in one table: found by selector, only the verifier's hash stored; `spend` is
 * one conditional UPDATE (unspent, unexpired), so of concurrent spends one wins.
 */
export class SqlSingleUseRecords<T extends SingleUseRecord> extends MikroOrmStore implements SingleUseRecords<T> {
  private readonly insert: string;
  private readonly select: string;
  private readonly update: string;
  private readonly purge: string;

  constructor(
    database: Database,
    private readonly shape: SingleUseTable<T>,
  ) {
    super(database);
    const { table, columns } = shape;
    const all = ['selector', 'verifier_hash', ...columns, 'created_at', 'expires_at'];
    this.insert = `insert into ${table} (${all.join(', ')}, spent_at) values (${all.map(() => '?').join(', ')}, null)`;
    this.select = `select ${all.join(', ')} from ${table} where selector = ? and spent_at is null and expires_at > ?`;
    this.update = `update ${table} set spent_at = ? where selector = ? and spent_at is null and expires_at > ?`;
    this.purge = `delete from ${table} where expires_at < ?`;
  }

  add(record: T): Promise<void> {
    return guarded(this.orm, async () => {
      const { selector, verifierHash, createdAt, expiresAt } = record;
      await this.sql.run(this.insert, [selector, verifierHash, ...this.shape.values(record), createdAt, expiresAt]);
    });
  }

  find(selector: string, now: Date): Promise<T | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<SingleUseRow>(this.select, [selector, now]);
      if (!row) return undefined;
      return {
        selector: row.selector,
        verifierHash: row.verifier_hash,
        ...this.shape.read(row),
        createdAt: new Date(row.created_at),
        expiresAt: new Date(row.expires_at),
      } as T;
    });
  }

  spend(selector: string, now: Date): Promise<boolean> {
    return guarded(this.orm, async () => (await this.sql.run(this.update, [now, selector, now])) === 1);
  }

  purgeExpired(before: Date): Promise<number> {
    return guarded(this.orm, () => this.sql.run(this.purge, [before]));
  }
}
