import type { User } from '../../domain/user/User.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';

/** One user by id; UserNotFoundError when unknown. */
export class GetUser {
  constructor(private readonly users: UserRepository) {}

  async execute(input: { readonly userId: string }): Promise<User> {
    const user = await this.users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    return user;
  }
}
