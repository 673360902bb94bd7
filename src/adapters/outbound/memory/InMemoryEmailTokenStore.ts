import type { Transaction } from '../../../application/ports/Jobs.js';
import type {
  EmailTokenLimits,
  EmailTokenRecord,
  EmailTokenStore,
} from '../../../application/ports/EmailTokenStore.js';
import { deleteWhere } from './InMemorySessionStore.js';
import type { AccountMailKind } from '../../../application/ports/Mailer.js';

interface Row {
  readonly record: EmailTokenRecord;
  spentAt?: Date;
}

/** E-mailed tokens in a Map. No await inside a method, so `spend` and `addWithinLimit` are atomic by construction. */
export class InMemoryEmailTokenStore implements EmailTokenStore {
  private readonly rows = new Map<string, Row>();

  /** `within` is not joined: memory writes are not transactional (the memory jobs' transaction holds back only jobs). */
  async addWithinLimit(record: EmailTokenRecord, limits: EmailTokenLimits, _within?: Transaction): Promise<boolean> {
    let toAddress = 0;
    let fromIp = 0;
    for (const { record: other } of this.rows.values()) {
      if (other.createdAt.getTime() < limits.since.getTime()) continue;
      if (other.email === record.email && other.purpose === record.purpose) toAddress += 1;
      if (record.requestedIp !== undefined && other.requestedIp === record.requestedIp) fromIp += 1;
    }
    if (toAddress >= limits.perAddress || fromIp >= limits.perIp) return false;
    this.rows.set(record.selector, { record: { ...record } });
    return true;
  }

  async find(selector: string): Promise<EmailTokenRecord | undefined> {
    const row = this.rows.get(selector);
    return row && row.spentAt === undefined ? { ...row.record } : undefined;
  }

  async spend(selector: string, now: Date): Promise<boolean> {
    const row = this.rows.get(selector);
    if (!row || row.spentAt !== undefined) return false;
    row.spentAt = now;
    return true;
  }

  async spendAll(userId: string, purpose: AccountMailKind | undefined, now: Date): Promise<void> {
    for (const row of this.rows.values()) {
      if (
        row.record.userId === userId &&
        (purpose === undefined || row.record.purpose === purpose) &&
        row.spentAt === undefined
      )
        row.spentAt = now;
    }
  }

  async purgeExpired(before: Date): Promise<number> {
    return deleteWhere(this.rows, (row) => row.record.expiresAt.getTime() < before.getTime());
  }
}
