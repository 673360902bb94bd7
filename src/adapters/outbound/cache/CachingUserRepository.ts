import type { Page } from '../../../domain/shared/Page.js';
import type { User } from '../../../domain/user/User.js';
import type { KeepingAnAdmin, UserListQuery, UserRepository } from '../../../domain/user/UserRepository.js';

/**
 * Remembers `findById` answers for a short time — every authenticated request looks its user up,
 * and that read was a third of the database work of a GET. Writes made through this repository
 * forget the user at once, so on one instance a deleted user's token fails immediately; another
 * instance may keep accepting it for at most `ttlMs`. Only found users are remembered, so a new
 * user is never reported missing.
 */
export class CachingUserRepository implements UserRepository {
  private readonly recent = new Map<string, { user: User; until: number }>();

  constructor(
    private readonly inner: UserRepository,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  async findById(id: string): Promise<User | undefined> {
    const now = Date.now();
    const hit = this.recent.get(id);
    if (hit && hit.until > now) return hit.user;
    const user = await this.inner.findById(id);
    if (user) {
      if (this.recent.size >= this.maxEntries) this.recent.clear();
      this.recent.set(id, { user, until: now + this.ttlMs });
    } else {
      this.recent.delete(id);
    }
    return user;
  }

  async add(user: User): Promise<void> {
    await this.inner.add(user);
  }

  update(user: User): Promise<void> {
    return this.forgetting(user.id, () => this.inner.update(user));
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

  /** A write of user `id`: forgotten before (no reader trusts the old copy) and after (nor one read meanwhile). */
  private async forgetting<T>(id: string, write: () => Promise<T>): Promise<T> {
    this.recent.delete(id);
    try {
      return await write();
    } finally {
      this.recent.delete(id);
    }
  }
}
