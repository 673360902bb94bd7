import { ConflictError, NotFoundError } from '../../domain/shared/DomainError.js';
import { keepsAWayIn, lastWayIn } from '../../domain/user/waysIn.js';
import type { Transactions } from '../ports/Jobs.js';
import type { PasskeyStore } from '../ports/PasskeyStore.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Identity, IdentityStore } from '../ports/IdentityStore.js';

/**
 * The caller's linked identities: listed, and unlinked one at a time — never the last way in
 * (`keepsAWayIn`: a password, another identity or a passkey must remain): that is ConflictError;
 * another user's identity, or none, is NotFoundError. The counts are taken under the lock of the
 * user's row, so an unlink and a passkey's removal at once cannot both think another way is left.
 */
export class LinkedIdentities {
  constructor(
    private readonly deps: {
      readonly users: UserRepository;
      readonly identities: IdentityStore;
      readonly passkeys: PasskeyStore;
      readonly transactions: Transactions;
    },
  ) {}

  list(userId: string): Promise<Identity[]> {
    return this.deps.identities.listOf(userId);
  }

  async unlink(userId: string, id: string): Promise<void> {
    const { users, identities, passkeys, transactions } = this.deps;
    const user = await users.findById(userId);
    if (!user) throw new UserNotFoundError(userId);
    await transactions.run(async (tx) => {
      await users.lock(user.id, tx);
      const linked = await identities.listOf(user.id, tx);
      if (!linked.some((identity) => identity.id === id)) throw new NotFoundError('Identity', id);
      const remaining = { identities: linked.length - 1, passkeys: await passkeys.countOf(user.id, tx) };
      if (!keepsAWayIn(user, remaining)) throw new ConflictError(lastWayIn('identity'));
      await identities.remove(user.id, id, tx);
    });
  }
}
