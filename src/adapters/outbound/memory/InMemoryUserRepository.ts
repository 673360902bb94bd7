import type { Page } from '../../../domain/shared/Page.js';
import type { Transaction } from '../../../domain/shared/Transaction.js';
import { User, type UserProps } from '../../../domain/user/User.js';
import { EmailAlreadyRegisteredError, UserNotFoundError } from '../../../domain/user/UserErrors.js';
import {
  ADMIN_ROLE,
  type KeepingAnAdmin,
  type SecondFactorFlags,
  type UserListQuery,
  type UserRepository,
  type UserSortField,
} from '../../../domain/user/UserRepository.js';
import { pageOf } from './sorting.js';

const SORT: Record<UserSortField, (u: UserProps) => string | Date> = {
  email: (u) => u.email,
  first_name: (u) => u.firstName,
  last_name: (u) => u.lastName,
  created_at: (u) => u.createdAt,
};

/** `user`'s props with the second-factor flags as stored: only setSecondFactors changes them. */
const keepingSecondFactors = (user: User, stored: UserProps): UserProps => ({
  ...user.toProps(),
  mfaEnabled: stored.mfaEnabled,
  hasPasskey: stored.hasPasskey,
});

/** Users in a Map: a real adapter for tests and single-process runs, async like the others. */
export class InMemoryUserRepository implements UserRepository {
  private readonly rows = new Map<string, UserProps>();

  /** `within` is not joined: memory writes are not transactional (the memory jobs' transaction holds back only jobs). */
  async add(user: User, _within?: Transaction): Promise<void> {
    this.assertEmailFree(user);
    this.rows.set(user.id, user.toProps());
  }

  async update(user: User, _within?: Transaction): Promise<void> {
    const stored = this.rows.get(user.id);
    if (!stored) throw new UserNotFoundError(user.id);
    this.assertEmailFree(user);
    this.rows.set(user.id, keepingSecondFactors(user, stored));
  }

  async setSecondFactors(id: string, flags: SecondFactorFlags, now: Date, _within?: Transaction): Promise<void> {
    const stored = this.rows.get(id);
    if (!stored) throw new UserNotFoundError(id);
    this.rows.set(id, { ...stored, ...flags, updatedAt: now });
  }

  /** Nothing to hold: memory writes run one at a time between awaits. */
  async lock(id: string, _within: Transaction): Promise<void> {
    if (!this.rows.has(id)) throw new UserNotFoundError(id);
  }

  async findById(id: string): Promise<User | undefined> {
    const row = this.rows.get(id);
    return row ? User.restore(row) : undefined;
  }

  async findByEmail(email: string): Promise<User | undefined> {
    for (const row of this.rows.values()) if (row.email === email) return User.restore(row);
    return undefined;
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async list(query: UserListQuery): Promise<Page<User>> {
    const needle = query.q?.toLowerCase();
    const matching = [...this.rows.values()].filter(
      (u) => !needle || [u.email, u.firstName, u.lastName].some((text) => text.toLowerCase().includes(needle)),
    );
    return pageOf(matching, query, SORT, (row) => User.restore(row));
  }

  // Check and write run without an await between them, so no other call interleaves.
  async updateKeepingAnAdmin(user: User): Promise<KeepingAnAdmin> {
    if (!this.rows.has(user.id)) return 'not-found';
    if (user.role !== ADMIN_ROLE && this.isLastAdmin(user.id)) return 'last-admin';
    this.assertEmailFree(user);
    this.rows.set(user.id, keepingSecondFactors(user, this.rows.get(user.id)!));
    return 'done';
  }

  async deleteKeepingAnAdmin(id: string): Promise<KeepingAnAdmin> {
    if (!this.rows.has(id)) return 'not-found';
    if (this.isLastAdmin(id)) return 'last-admin';
    this.rows.delete(id);
    return 'done';
  }

  /** Whether `id` is an admin and nobody else is. */
  private isLastAdmin(id: string): boolean {
    if (this.rows.get(id)?.role !== ADMIN_ROLE) return false;
    for (const row of this.rows.values()) if (row.role === ADMIN_ROLE && row.id !== id) return false;
    return true;
  }

  private assertEmailFree(user: User): void {
    for (const row of this.rows.values()) {
      if (row.email === user.email && row.id !== user.id) throw new EmailAlreadyRegisteredError();
    }
  }
}
