import type { Cache } from '../../../application/ports/Cache.js';
import type { CallerLookup } from '../../../application/ports/CallerLookup.js';
import { User, type UserProps } from '../../../domain/user/User.js';
import { fromCacheable, toCacheable, userTag, type FreshReads } from './cacheable.js';

/**
 * Remembers found callers in the shared cache for a short time (docs/authentication.md allows a
 * second): every authenticated request asks, and most ask again within the second. Each answer is
 * kept under its (user, session) and tagged with its user, so `forgetUser` — when a session of the
 * user ends or the user is written — drops them all, here and on every instance (ADR 0042); an
 * instance that missed the message serves an old answer for at most `ttlMs`. Only found answers
 * are remembered, so a new session is never refused; loads run through `fresh` (never a lagging replica).
 */
export class CachingCallerLookup implements CallerLookup {
  /**
   * The user made of each remembered answer: the cache gives the same (frozen) answer again until
   * it is forgotten, and the user is made of it once, not on every request.
   */
  private readonly users = new WeakMap<object, User>();

  constructor(
    private readonly inner: CallerLookup,
    private readonly cache: Cache,
    private readonly fresh: FreshReads = (work) => work(),
    private readonly ttlMs = 1000,
  ) {}

  async find(userId: string, sessionId: string, now: Date): Promise<User | undefined> {
    const props = await this.cache.getOrSet(
      `caller:${userId}:${sessionId}`,
      () => this.fresh(async () => toCacheable((await this.inner.find(userId, sessionId, now))?.toProps())),
      { ttlMs: this.ttlMs, tags: [userTag(userId)] },
    );
    if (props === undefined || props === null) return undefined;
    let user = this.users.get(props);
    if (!user) {
      user = User.restore(fromCacheable<UserProps>(props));
      this.users.set(props, user);
    }
    return user;
  }
}
