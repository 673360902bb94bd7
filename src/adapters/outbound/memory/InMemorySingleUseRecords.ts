import type { SingleUseRecord, SingleUseRecords } from '../../../application/ports/SingleUseRecords.js';

/** Single-use records in memory (each check and write with no await between: of racing spends one wins). */
export class InMemorySingleUseRecords<T extends SingleUseRecord> implements SingleUseRecords<T> {
  private readonly rows = new Map<string, { record: T; spentAt: Date | null }>();

  async add(record: T): Promise<void> {
    await Promise.resolve();
    this.rows.set(record.selector, { record, spentAt: null });
  }

  async find(selector: string, now: Date): Promise<T | undefined> {
    await Promise.resolve();
    const row = this.rows.get(selector);
    return row && row.spentAt === null && row.record.expiresAt > now ? row.record : undefined;
  }

  async spend(selector: string, now: Date): Promise<boolean> {
    await Promise.resolve();
    const row = this.rows.get(selector);
    if (!row || row.spentAt !== null || row.record.expiresAt <= now) return false;
    row.spentAt = now;
    return true;
  }

  async purgeExpired(before: Date): Promise<number> {
    await Promise.resolve();
    let purged = 0;
    for (const [selector, row] of this.rows) {
      if (row.record.expiresAt < before) {
        this.rows.delete(selector);
        purged += 1;
      }
    }
    return purged;
  }
}
