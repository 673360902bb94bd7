import type { Page } from '../../../domain/shared/Page.js';
import type { User } from '../../../domain/user/User.js';
import type {
  KeepingAnAdmin,
  SecondFactorFlags,
  UserListQuery,
  UserRepository,
} from '../../../domain/user/UserRepository.js';
import type { Transaction } from '../../../domain/shared/Transaction.js';
import { afterCommit } from '../afterCommit.js';

/** Told of every write of a user through the cache once it is stored (to tell the other instances); never rejects. */
export type UserWriteListener = (id: string) => Promise<void>;

/**
 * Remembers `findById` answers for a short time — every authenticated request looks its user up
 * (ADR 0007 says what that read cost). Writes made through this repository
 * forget the user at once, so on one instance a deleted user's token fails immediately. Other
 * instances forget it when told (`forget`, through the write listener: ADR 0021); when they are
 * not told, they keep the old copy for at most `ttlMs`. Only found users are remembered, so a new
 * user is never reported missing.
 */
export class CachingUserRepository implements UserRepository {
  private readonly recent = new Map<string, { user: User; until: number }>();
  /** Bumped by every forget, so a read that overlapped one does not store what it read. */
  private generation = 0;
  private listener: UserWriteListener | undefined;

  constructor(
    private readonly inner: UserRepository,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  async findById(id: string): Promise<User | undefined> {
    const now = Date.now();
    const hit = this.recent.get(id);
    if (hit && hit.until > now) return hit.user;
    const generation = this.generation;
    const user = await this.inner.findById(id);
    // A forget that came while reading may be about a write the read did not see yet.
    if (user && generation === this.generation) {
      if (this.recent.size >= this.maxEntries) this.recent.clear();
      this.recent.set(id, { user, until: now + this.ttlMs });
    } else {
      this.recent.delete(id);
    }
    return user;
  }

  /** Drops what is remembered of user `id` (another instance wrote it). */
  forget(id: string): void {
    this.generation += 1;
    this.recent.delete(id);
  }

  /** Sets the one listener told of each write made through this repository; it is awaited. */
  onWrite(listener: UserWriteListener): void {
    this.listener = listener;
  }

  async add(user: User, within?: Transaction): Promise<void> {
    await this.inner.add(user, within);
  }

  /** Within a transaction, the user is forgotten (here and, through the listener, elsewhere) again once it committed. */
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
   * A write of user `id`: forgotten before (no reader trusts the old copy) and after (nor one read
   * meanwhile), then the listener is told before the write is answered.
   */
  private async forgetting<T>(id: string, write: () => Promise<T>, within?: Transaction): Promise<T> {
    this.forget(id);
    try {
      return await write();
    } finally {
      // A read between the write and its commit sees the old row: forget (and tell) once it is visible.
      await afterCommit(within, async () => {
        this.forget(id);
        await this.listener?.(id);
      });
    }
  }
}
