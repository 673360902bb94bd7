import type { CallerLookup } from '../../../application/ports/CallerLookup.js';
import type { User } from '../../../domain/user/User.js';

interface Entry {
  readonly userId: string;
  readonly user: User;
  readonly until: number;
}

/** One cache key per (user, session); ids never hold a newline. */
const keyOf = (userId: string, sessionId: string): string => `${userId}\n${sessionId}`;

/**
 * Remembers found callers for a short time (docs/authentication.md allows a second): every authenticated
 * request asks, and most ask again within the second. Only found answers are remembered, so a new
 * session is never refused. `forgetUser` drops every remembered session of a user at once (a
 * per-user index, no scan): call it when a session of the user ends or the user is written, on
 * this instance or — when told — another; untold, an instance serves an old answer for at most
 * `ttlMs` (wall-clock time, whatever the service's clock says).
 */
export class CachingCallerLookup implements CallerLookup {
  private readonly recent = new Map<string, Entry>();
  /** The keys of `recent` per user. */
  private readonly byUser = new Map<string, Set<string>>();
  /** Bumped by every forget, so a read that overlapped one does not store what it read. */
  private generation = 0;

  constructor(
    private readonly inner: CallerLookup,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  async find(userId: string, sessionId: string, now: Date): Promise<User | undefined> {
    const key = keyOf(userId, sessionId);
    const startedAt = Date.now();
    const hit = this.recent.get(key);
    if (hit && hit.until > startedAt) return hit.user;
    if (hit) this.drop(key, userId);
    const generation = this.generation;
    const user = await this.inner.find(userId, sessionId, now);
    // A forget that came while reading may be about an end or a write the read did not see yet.
    if (user && generation === this.generation) this.remember(key, { userId, user, until: startedAt + this.ttlMs });
    return user;
  }

  /** Drops every remembered answer about user `userId` (a session of it ended, or it was written or deleted). */
  forgetUser(userId: string): void {
    this.generation += 1;
    const keys = this.byUser.get(userId);
    if (!keys) return;
    for (const key of keys) this.recent.delete(key);
    this.byUser.delete(userId);
  }

  /** How many answers are remembered (for tests and metrics). */
  get size(): number {
    return this.recent.size;
  }

  private remember(key: string, entry: Entry): void {
    if (this.recent.size >= this.maxEntries && !this.recent.has(key)) {
      this.recent.clear();
      this.byUser.clear();
    }
    this.recent.set(key, entry);
    let keys = this.byUser.get(entry.userId);
    if (!keys) {
      keys = new Set();
      this.byUser.set(entry.userId, keys);
    }
    keys.add(key);
  }

  private drop(key: string, userId: string): void {
    this.recent.delete(key);
    const keys = this.byUser.get(userId);
    keys?.delete(key);
    if (keys?.size === 0) this.byUser.delete(userId);
  }
}
