import { ConflictError } from '../../domain/shared/DomainError.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';

/**
 * Deletes a user and every refresh token they hold; their access tokens stop working at once
 * (authentication checks that the user exists). An admin cannot delete themselves, and the last
 * user whose role is `admin` cannot be deleted (a conflict, decided atomically by the repository);
 * a refused deletion keeps the user's refresh tokens.
 */
export class DeleteUser {
  constructor(
    private readonly users: UserRepository,
    private readonly refreshTokens: RefreshTokenStore,
  ) {}

  async execute(input: { readonly actorId: string; readonly userId: string }): Promise<void> {
    if (input.actorId === input.userId) throw new ConflictError('you cannot delete yourself');
    const outcome = await this.users.deleteKeepingAnAdmin(input.userId);
    if (outcome === 'not-found') throw new UserNotFoundError(input.userId);
    if (outcome === 'last-admin') throw new ConflictError('the last admin cannot be deleted');
    await this.refreshTokens.deleteForUser(input.userId);
  }
}
