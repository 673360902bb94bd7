import { ConflictError, NotFoundError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Identity, IdentityStore } from '../ports/IdentityStore.js';

/**
 * Whether `user` still has a way to sign in once only `remainingIdentities` identities are linked to
 * it: a password, or an identity.
 */
export function keepsAWayIn(user: User, remainingIdentities: number): boolean {
  return user.hasPassword || remainingIdentities > 0;
}

/**
 * The caller's linked identities: listed, and unlinked one at a time — never the last way in
 * (`keepsAWayIn`): that is ConflictError; another user's identity, or none, is NotFoundError.
 */
export class LinkedIdentities {
  constructor(private readonly deps: { readonly users: UserRepository; readonly identities: IdentityStore }) {}

  list(userId: string): Promise<Identity[]> {
    return this.deps.identities.listOf(userId);
  }

  async unlink(userId: string, id: string): Promise<void> {
    const { users, identities } = this.deps;
    const user = await users.findById(userId);
    if (!user) throw new UserNotFoundError(userId);
    const linked = await identities.listOf(userId);
    if (!linked.some((identity) => identity.id === id)) throw new NotFoundError('Identity', id);
    if (!keepsAWayIn(user, linked.length - 1)) {
      throw new ConflictError(
        'this identity is the only way to sign in to the account: set a password (a password reset) or link another first',
      );
    }
    if (!(await identities.remove(userId, id))) throw new NotFoundError('Identity', id);
  }
}
