import type { Cache } from '../../../application/ports/Cache.js';
import type { Page } from '../../../domain/shared/Page.js';
import { User, type UserProps } from '../../../domain/user/User.js';
import type {
  KeepingAnAdmin,
  SecondFactorFlags,
  UserListQuery,
  UserRepository,
} from '../../../domain/user/UserRepository.js';
import type { Transaction } from '../../../domain/shared/Transaction.js';
import { afterCommit } from '../afterCommit.js';
import { fromCacheable, toCacheable, userTag, type FreshReads } from './cacheable.js';

/** Forgets every cached answer about user `id` — its row, its callers — here and on every instance (ADR 0042). */
export const forgetUser = (cache: Cache, id: string): Promise<void> => cache.deleteTagged([userTag(id)]);

/**
 * Remembers `findById` answers in the shared cache for a short time — every authenticated request
 * looks its user up (ADR 0007 says what that read cost). Every write made through this repository
 * forgets the user, on this instance and every other (ADR 0042), before the write is answered;
 * an instance that missed the message (the shared layer was away) keeps the old copy for at most
 * `ttlMs`. Only found users are remembered, so a new user is never reported missing. Loads run
 * through `fresh`, so a forgotten user is never loaded again from a lagging replica.
 */
export class CachingUserRepository implements UserRepository {
  constructor(
    private readonly inner: UserRepository,
    private readonly cache: Cache,
    private readonly fresh: FreshReads = (work) => work(),
    private readonly ttlMs = 1000,
  ) {}

  async findById(id: string): Promise<User | undefined> {
    const props = await this.cache.getOrSet(
      `user:${id}`,
      () => this.fresh(async () => toCacheable((await this.inner.findById(id))?.toProps())),
      { ttlMs: this.ttlMs, tags: [userTag(id)] },
    );
    return props === undefined ? undefined : User.restore(fromCacheable<UserProps>(props));
  }

  async add(user: User, within?: Transaction): Promise<void> {
    await this.inner.add(user, within);
  }

  /** Within a transaction, the user is forgotten again once it committed. */
  update(user: User, within?: Transaction): Promise<void> {
    return this.forgetting(user.id, () => this.inner.update(user, within), within);
  }

  setSecondFactors(id: string, flags: SecondFactorFlags, now: Date, within?: Transaction): Promise<void> {
    return this.forgetting(id, () => this.inner.setSecondFactors(id, flags, now, within), within);
  }

  lock(id: string, within: Transaction): Promise<void> {
    return this.inner.lock(id, within);
  }

  delete(id: string): Promise<boolean> {
    return this.forgetting(id, () => this.inner.delete(id));
  }

  updateKeepingAnAdmin(user: User): Promise<KeepingAnAdmin> {
    return this.forgetting(user.id, () => this.inner.updateKeepingAnAdmin(user));
  }

  deleteKeepingAnAdmin(id: string): Promise<KeepingAnAdmin> {
    return this.forgetting(id, () => this.inner.deleteKeepingAnAdmin(id));
  }

  findByEmail(email: string): Promise<User | undefined> {
    return this.inner.findByEmail(email);
  }

  list(query: UserListQuery): Promise<Page<User>> {
    return this.inner.list(query);
  }

  /**
   * A write of user `id`: forgotten before (no reader trusts the old copy) and once the write is
   * visible (nor one read meanwhile), everywhere, before the write is answered.
   */
  private async forgetting<T>(id: string, write: () => Promise<T>, within?: Transaction): Promise<T> {
    await forgetUser(this.cache, id);
    try {
      return await write();
    } finally {
      // A read between the write and its commit sees the old row: forget once it is visible.
      await afterCommit(within, () => forgetUser(this.cache, id));
    }
  }
}
