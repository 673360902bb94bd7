import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { SessionEnder } from './SessionEnder.js';

/**
 * Ends every session of a user (docs/authentication.md): the caller's own (`POST /auth/logout-all`, the
 * current session included) or, for an admin, any user's (`POST /admin/users/{id}/logout`).
 * An unknown user: UserNotFoundError.
 */
export class EndAllSessions {
  constructor(
    private readonly users: UserRepository,
    private readonly ender: SessionEnder,
  ) {}

  async execute(input: { readonly userId: string }): Promise<void> {
    if (!(await this.users.findById(input.userId))) throw new UserNotFoundError(input.userId);
    await this.ender.endAll(input.userId);
  }
}
