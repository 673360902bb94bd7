import type { SessionRecord, SessionStore } from '../../../application/ports/SessionStore.js';

interface Row {
  record: SessionRecord;
  endedAt?: Date;
}

const isActive = (row: Row, now: Date): boolean =>
  row.endedAt === undefined && row.record.expiresAt.getTime() > now.getTime();

/** Newest first: by `createdAt`, ties by id, both descending. */
const newestFirst = (a: SessionRecord, b: SessionRecord): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Deletes the entries `doomed` holds for; answers how many. */
export function deleteWhere<K, V>(rows: Map<K, V>, doomed: (row: V) => boolean): number {
  let deleted = 0;
  for (const [key, row] of rows) if (doomed(row) && rows.delete(key)) deleted += 1;
  return deleted;
}

/**
 * Sessions in a Map. Single-threaded and without an await inside a method, so every check and
 * write is atomic by construction. A deleted user's sessions are never listed nor active for a
 * lookup (the user is gone); nothing here removes them.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly rows = new Map<string, Row>();

  async start(session: SessionRecord): Promise<void> {
    this.rows.set(session.id, { record: { ...session } });
  }

  async touch(id: string, now: Date, expiresAt: Date): Promise<void> {
    const row = this.rows.get(id);
    if (!row || row.endedAt !== undefined) return;
    row.record = { ...row.record, lastUsedAt: now, expiresAt };
  }

  async listActive(userId: string, now: Date): Promise<SessionRecord[]> {
    return [...this.rows.values()]
      .filter((row) => row.record.userId === userId && isActive(row, now))
      .map((row) => ({ ...row.record }))
      .sort(newestFirst);
  }

  async isActive(userId: string, id: string, now: Date): Promise<boolean> {
    const row = this.rows.get(id);
    return row !== undefined && row.record.userId === userId && isActive(row, now);
  }

  async end(userId: string, id: string, now: Date): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.record.userId !== userId || !isActive(row, now)) return false;
    row.endedAt = now;
    return true;
  }

  async endAll(userId: string, now: Date, keep?: string): Promise<string[]> {
    const ended: string[] = [];
    for (const row of this.rows.values()) {
      if (row.record.userId !== userId || row.record.id === keep || !isActive(row, now)) continue;
      row.endedAt = now;
      ended.push(row.record.id);
    }
    return ended;
  }

  async purgeExpired(before: Date): Promise<number> {
    return deleteWhere(this.rows, (row) => row.record.expiresAt.getTime() < before.getTime());
  }
}
