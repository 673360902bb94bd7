import type { Page, PageRequest } from '../shared/Page.js';
import type { User } from './User.js';

export type UserSortField = 'email' | 'first_name' | 'last_name' | 'created_at';

/** A page of users, optionally filtered by `q` (case-insensitive, in e-mail and names). */
export interface UserListQuery extends PageRequest<UserSortField> {
  readonly q?: string;
}

/**
 * Where users live. Promises: e-mails are unique (compared as stored: normalized);
 * `add` and `update` reject with EmailAlreadyRegisteredError when another user has the e-mail;
 * `update` and `delete` of an unknown id reject with / return the not-found outcome; lists are
 * sorted by the requested field, then by id.
 */
export interface UserRepository {
  add(user: User): Promise<void>;
  /** Rejects with UserNotFoundError when the user no longer exists. */
  update(user: User): Promise<void>;
  findById(id: string): Promise<User | undefined>;
  findByEmail(email: string): Promise<User | undefined>;
  /** `true` when a user was deleted. */
  delete(id: string): Promise<boolean>;
  list(query: UserListQuery): Promise<Page<User>>;
}
