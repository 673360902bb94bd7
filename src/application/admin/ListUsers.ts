import type { Page } from '../../domain/shared/Page.js';
import type { User } from '../../domain/user/User.js';
import type { UserListQuery, UserRepository } from '../../domain/user/UserRepository.js';

/** A page of users, sorted and optionally filtered by `q` on e-mail and names. */
export class ListUsers {
  constructor(private readonly users: UserRepository) {}

  execute(query: UserListQuery): Promise<Page<User>> {
    return this.users.list(query);
  }
}
