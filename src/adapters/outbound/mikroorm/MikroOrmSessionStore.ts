import type { SessionRecord, SessionStore } from '../../../application/ports/SessionStore.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { guarded } from './errors.js';
import { SessionSchema, type SessionRow } from './schemas/SessionSchema.js';

const toRecord = (row: SessionRow): SessionRecord => ({
  id: row.id,
  userId: row.userId,
  createdAt: new Date(row.createdAt),
  lastUsedAt: new Date(row.lastUsedAt),
  expiresAt: new Date(row.expiresAt),
  userAgent: row.userAgent ?? null,
  ip: row.ip ?? null,
});

/**
 * Sessions in the database. Every change is one conditional statement on rows still active
 * (`ended_at is null`, and for ending, not expired), so ending is final and each session is
 * reported ended by exactly one caller. Rows go with their user (foreign key, on delete cascade).
 */
export class MikroOrmSessionStore extends MikroOrmStore implements SessionStore {
  start(session: SessionRecord): Promise<void> {
    return guarded(this.orm, async () => {
      await this.em().insert(SessionSchema, { ...session, endedAt: null });
    });
  }

  touch(id: string, now: Date, expiresAt: Date): Promise<void> {
    return guarded(this.orm, async () => {
      await this.em().nativeUpdate(SessionSchema, { id, endedAt: null }, { lastUsedAt: now, expiresAt });
    });
  }

  listActive(userId: string, now: Date): Promise<SessionRecord[]> {
    return guarded(this.orm, async () => {
      const rows = await this.em().find(
        SessionSchema,
        { userId, endedAt: null, expiresAt: { $gt: now } },
        { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], disableIdentityMap: true },
      );
      return rows.map(toRecord);
    });
  }

  isActive(userId: string, id: string, now: Date): Promise<boolean> {
    return guarded(
      this.orm,
      async () => (await this.em().count(SessionSchema, { id, userId, endedAt: null, expiresAt: { $gt: now } })) > 0,
    );
  }

  end(userId: string, id: string, now: Date): Promise<boolean> {
    return guarded(this.orm, async () => {
      const ended = await this.em().nativeUpdate(
        SessionSchema,
        { id, userId, endedAt: null, expiresAt: { $gt: now } },
        { endedAt: now },
      );
      return ended === 1;
    });
  }

  /** One `update … returning id`: the ids are exactly the rows this statement ended, whoever else ends them meanwhile. */
  endAll(userId: string, now: Date, keep?: string): Promise<string[]> {
    return guarded(this.orm, async () => {
      const sql =
        'update sessions set ended_at = ? where user_id = ? and ended_at is null and expires_at > ?' +
        (keep === undefined ? '' : ' and id <> ?') +
        ' returning id';
      const params = keep === undefined ? [now, userId, now] : [now, userId, now, keep];
      const rows = await this.sql.all<{ id: string }>(sql, params);
      return rows.map((row) => row.id);
    });
  }

  purgeExpired(before: Date): Promise<number> {
    return guarded(this.orm, () => this.em().nativeDelete(SessionSchema, { expiresAt: { $lt: before } }));
  }
}
