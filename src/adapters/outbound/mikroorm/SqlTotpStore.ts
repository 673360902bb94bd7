import type { TotpEnrolment, TotpStore } from '../../../application/ports/TotpStore.js';
import type { Transaction } from '../../../domain/shared/Transaction.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { sqlOf } from './SqlTransactions.js';
import { guarded } from './errors.js';
import type { SqlStatements } from './sqlExecutor.js';

/** A `totp_enrolments` row as a raw read returns it (timestamps: numbers on SQLite, Dates on PostgreSQL). */
interface EnrolmentRow {
  user_id: string;
  sealed_secret: string;
  confirmed_at: Date | number | string | null;
  last_used_step: number | string | null;
  created_at: Date | number | string;
}

const toEnrolment = (row: EnrolmentRow): TotpEnrolment => ({
  userId: row.user_id,
  sealedSecret: row.sealed_secret,
  confirmedAt: row.confirmed_at === null ? null : new Date(row.confirmed_at),
  lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
  createdAt: new Date(row.created_at),
});

/**
 * TOTP enrolments (`totp_enrolments`, the secret only sealed) and recovery codes (`recovery_codes`,
 * only their keyed hashes), in statements written by hand. `useStep` and `useRecoveryCode` are each
 * one conditional UPDATE, so of concurrent uses of one step or code exactly one wins. Rows go with
 * their user (foreign keys).
 */
export class SqlTotpStore extends MikroOrmStore implements TotpStore {
  find(userId: string): Promise<TotpEnrolment | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<EnrolmentRow>(
        'select user_id, sealed_secret, confirmed_at, last_used_step, created_at from totp_enrolments where user_id = ?',
        [userId],
      );
      return row ? toEnrolment(row) : undefined;
    });
  }

  begin(enrolment: TotpEnrolment): Promise<boolean> {
    return guarded(this.orm, async () => {
      const changed = await this.sql.run(
        'insert into totp_enrolments (user_id, sealed_secret, confirmed_at, last_used_step, created_at) ' +
          'values (?, ?, null, null, ?) ' +
          'on conflict (user_id) do update set sealed_secret = excluded.sealed_secret, created_at = excluded.created_at ' +
          'where totp_enrolments.confirmed_at is null',
        [enrolment.userId, enrolment.sealedSecret, enrolment.createdAt],
      );
      return changed === 1;
    });
  }

  confirm(
    userId: string,
    now: Date,
    step: number,
    recoveryCodeHashes: readonly string[],
    within?: Transaction,
  ): Promise<boolean> {
    const work = async (sql: SqlStatements): Promise<boolean> => {
      const confirmed = await sql.run(
        'update totp_enrolments set confirmed_at = ?, last_used_step = ? where user_id = ? and confirmed_at is null',
        [now, step, userId],
      );
      if (confirmed !== 1) return false;
      await sql.run('delete from recovery_codes where user_id = ?', [userId]);
      for (const hash of recoveryCodeHashes) {
        await sql.run('insert into recovery_codes (user_id, code_hash, created_at, used_at) values (?, ?, ?, null)', [
          userId,
          hash,
          now,
        ]);
      }
      return true;
    };
    return guarded(this.orm, () => (within ? work(sqlOf(within)) : this.sql.transaction(work)));
  }

  remove(userId: string, within?: Transaction): Promise<boolean> {
    const work = async (sql: SqlStatements): Promise<boolean> => {
      await sql.run('delete from recovery_codes where user_id = ?', [userId]);
      return (await sql.run('delete from totp_enrolments where user_id = ?', [userId])) === 1;
    };
    return guarded(this.orm, () => (within ? work(sqlOf(within)) : this.sql.transaction(work)));
  }

  useStep(userId: string, step: number): Promise<boolean> {
    return guarded(
      this.orm,
      async () =>
        (await this.sql.run(
          'update totp_enrolments set last_used_step = ? ' +
            'where user_id = ? and confirmed_at is not null and (last_used_step is null or last_used_step < ?)',
          [step, userId, step],
        )) === 1,
    );
  }

  useRecoveryCode(userId: string, codeHash: string, now: Date): Promise<boolean> {
    return guarded(
      this.orm,
      async () =>
        (await this.sql.run(
          'update recovery_codes set used_at = ? where user_id = ? and code_hash = ? and used_at is null',
          [now, userId, codeHash],
        )) === 1,
    );
  }

  recoveryCodesLeft(userId: string): Promise<number> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<{ left: number | string }>(
        'select count(*) as "left" from recovery_codes where user_id = ? and used_at is null',
        [userId],
      );
      return Number(row?.left ?? 0);
    });
  }
}
