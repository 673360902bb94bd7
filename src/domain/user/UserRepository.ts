import type { Page, PageRequest } from '../shared/Page.js';
import type { Transaction } from '../shared/Transaction.js';
import type { User } from './User.js';

/** The fields a user list can be sorted by (snake case, as REST names them); everything else derives from this. */
export const USER_SORT_FIELDS = ['email', 'first_name', 'last_name', 'created_at'] as const;
export type UserSortField = (typeof USER_SORT_FIELDS)[number];

/** A page of users, optionally filtered by `q` (case-insensitive, in e-mail and names). */
export interface UserListQuery extends PageRequest<UserSortField> {
  readonly q?: string;
}

/** The role the service cannot be left without (docs/access-rules.md): compared exactly, never through inheritance. */
export const ADMIN_ROLE = 'admin';

/** What a write that must keep an admin did: `last-admin` means it changed nothing. */
export type KeepingAnAdmin = 'done' | 'not-found' | 'last-admin';

/**
 * Where users live. Promises: e-mails are unique (compared as stored: normalized);
 * `add` and `update` reject with EmailAlreadyRegisteredError when another user has the e-mail;
 * `update` and `delete` of an unknown id reject with / return the not-found outcome; lists are
 * sorted by the requested field, then by id.
 */
/** The second-factor flags of a user, as `setSecondFactors` sets them (absent: unchanged). */
export interface SecondFactorFlags {
  readonly mfaEnabled?: boolean;
  readonly hasPasskey?: boolean;
}

export interface UserRepository {
  /** Inside `within` when given: stored only if that transaction commits (with the job that follows it). */
  add(user: User, within?: Transaction): Promise<void>;
  /**
   * Rejects with UserNotFoundError when the user no longer exists. Inside `within` when given, like
   * `add`. Writes everything but the second-factor flags (`mfaEnabled`, `hasPasskey`): those change
   * only through `setSecondFactors`, so a profile change made from an older read never undoes them.
   */
  update(user: User, within?: Transaction): Promise<void>;
  /** Sets the user's second-factor flags given (and `updatedAt`), inside `within` when given; UserNotFoundError when none. */
  setSecondFactors(id: string, flags: SecondFactorFlags, now: Date, within?: Transaction): Promise<void>;
  /**
   * Holds the user's row until `within` ends, so that what a transaction counts of the user's ways in
   * (passkeys, identities) after it stays true until it commits; UserNotFoundError when there is none.
   */
  lock(id: string, within: Transaction): Promise<void>;
  findById(id: string): Promise<User | undefined>;
  findByEmail(email: string): Promise<User | undefined>;
  /** `true` when a user was deleted. */
  delete(id: string): Promise<boolean>;
  list(query: UserListQuery): Promise<Page<User>>;
  /**
   * Stores `user` like `update`, unless that would take the role `admin` from the last user who
   * has it (the stored user's role is exactly `admin`, the new one is not, and no other user's
   * is): then it changes nothing and answers `last-admin`. Atomic against every other
   * `updateKeepingAnAdmin` and `deleteKeepingAnAdmin`, on every storage: however many run at once,
   * they never together leave zero admins where there was one. `not-found` for an unknown id.
   */
  updateKeepingAnAdmin(user: User): Promise<KeepingAnAdmin>;
  /** Deletes like `delete`, with the promise of `updateKeepingAnAdmin`: never the last `admin`. */
  deleteKeepingAnAdmin(id: string): Promise<KeepingAnAdmin>;
}
