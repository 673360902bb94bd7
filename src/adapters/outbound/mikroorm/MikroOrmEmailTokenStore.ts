import type {
  EmailTokenLimits,
  EmailTokenRecord,
  EmailTokenStore,
} from '../../../application/ports/EmailTokenStore.js';
import type { AccountMailKind } from '../../../application/ports/Mailer.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import type { Transaction } from '../../../application/ports/Jobs.js';
import { sqlOf } from './SqlTransactions.js';
import { guarded } from './errors.js';
import { EmailTokenSchema, type EmailTokenRow } from './schemas/EmailTokenSchema.js';

const toRecord = (row: EmailTokenRow): EmailTokenRecord => ({
  selector: row.selector,
  verifierHash: row.verifierHash,
  userId: row.userId,
  purpose: row.purpose as AccountMailKind,
  email: row.email,
  createdAt: new Date(row.createdAt),
  expiresAt: new Date(row.expiresAt),
  ...(row.requestedIp ? { requestedIp: row.requestedIp } : {}),
});

/**
 * E-mailed tokens in the database. `spend` is one conditional UPDATE (`spent_at is null`), so of
 * any number of concurrent spenders exactly one wins; `addWithinLimit` is one INSERT … SELECT whose
 * WHERE counts the address's recent tokens of that purpose and the requesting IP's recent tokens.
 * Rows go with their user (foreign key).
 */
export class MikroOrmEmailTokenStore extends MikroOrmStore implements EmailTokenStore {
  /**
   * One statement. Two concurrent adds for one address may both count below the limit (on
   * PostgreSQL's READ COMMITTED; SQLite runs writes one at a time): the limit can be passed by the
   * number of such racing requests, never more.
   */
  addWithinLimit(record: EmailTokenRecord, limits: EmailTokenLimits, within?: Transaction): Promise<boolean> {
    return guarded(this.orm, async () => {
      // PostgreSQL types a bare parameter in a select list as text: the timestamps say what they are.
      const stamp = this.sql.dialect === 'postgresql' ? 'cast(? as timestamptz)' : '?';
      const { since } = limits;
      const perIp = record.requestedIp !== undefined;
      const sql =
        'insert into email_tokens (selector, verifier_hash, user_id, purpose, email, requested_ip, created_at, expires_at, spent_at) ' +
        `select ?, ?, ?, ?, ?, ?, ${stamp}, ${stamp}, null ` +
        `where (select count(*) from email_tokens where email = ? and purpose = ? and created_at >= ${stamp}) < ?` +
        (perIp ? ` and (select count(*) from email_tokens where requested_ip = ? and created_at >= ${stamp}) < ?` : '');
      const params = [
        record.selector,
        record.verifierHash,
        record.userId,
        record.purpose,
        record.email,
        record.requestedIp ?? null,
        record.createdAt,
        record.expiresAt,
        record.email,
        record.purpose,
        since,
        limits.perAddress,
        ...(perIp ? [record.requestedIp, since, limits.perIp] : []),
      ];
      return (await (within ? sqlOf(within) : this.sql).run(sql, params)) === 1;
    });
  }

  find(selector: string): Promise<EmailTokenRecord | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.em().findOne(EmailTokenSchema, { selector, spentAt: null }, { disableIdentityMap: true });
      return row ? toRecord(row) : undefined;
    });
  }

  spend(selector: string, now: Date): Promise<boolean> {
    return guarded(
      this.orm,
      async () => (await this.em().nativeUpdate(EmailTokenSchema, { selector, spentAt: null }, { spentAt: now })) === 1,
    );
  }

  spendAll(userId: string, purpose: AccountMailKind | undefined, now: Date): Promise<void> {
    return guarded(this.orm, async () => {
      const where = purpose === undefined ? { userId, spentAt: null } : { userId, purpose, spentAt: null };
      await this.em().nativeUpdate(EmailTokenSchema, where, { spentAt: now });
    });
  }

  purgeExpired(before: Date): Promise<number> {
    return guarded(this.orm, () => this.em().nativeDelete(EmailTokenSchema, { expiresAt: { $lt: before } }));
  }
}
