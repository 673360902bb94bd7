import type { SessionRecord, SessionStore } from '../../../application/ports/SessionStore.js';

/**
 * A SessionStore that announces every ended session (its user's id) before the ending is
 * answered, so the caller lookup's cache — here and on the other instances — stops accepting the
 * session's access tokens at once rather than after its TTL (docs/authentication.md: within a second).
 */
export class AnnouncingSessionStore implements SessionStore {
  constructor(
    private readonly inner: SessionStore,
    private readonly announce: (userId: string) => Promise<void>,
  ) {}

  start(session: SessionRecord): Promise<void> {
    return this.inner.start(session);
  }

  touch(id: string, now: Date, expiresAt: Date): Promise<void> {
    return this.inner.touch(id, now, expiresAt);
  }

  listActive(userId: string, now: Date): Promise<SessionRecord[]> {
    return this.inner.listActive(userId, now);
  }

  isActive(userId: string, id: string, now: Date): Promise<boolean> {
    return this.inner.isActive(userId, id, now);
  }

  async end(userId: string, id: string, now: Date): Promise<boolean> {
    const ended = await this.inner.end(userId, id, now);
    if (ended) await this.announce(userId);
    return ended;
  }

  async endAll(userId: string, now: Date, keep?: string): Promise<string[]> {
    const ended = await this.inner.endAll(userId, now, keep);
    if (ended.length > 0) await this.announce(userId);
    return ended;
  }

  /** Only expired sessions go, which no lookup finds active: nothing to announce. */
  purgeExpired(before: Date): Promise<number> {
    return this.inner.purgeExpired(before);
  }
}
