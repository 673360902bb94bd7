import { ConflictError } from '../../domain/shared/DomainError.js';
import { keepsAWayIn, lastWayIn } from '../../domain/user/waysIn.js';
import type { IdentityStore } from '../ports/IdentityStore.js';
import { PasskeyNotFoundError, UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { Transactions } from '../ports/Jobs.js';
import type { PasskeyStore } from '../ports/PasskeyStore.js';

/** What RemovePasskey is given, by name. */
export interface RemovePasskeyDependencies {
  readonly users: UserRepository;
  readonly passkeys: PasskeyStore;
  readonly identities: IdentityStore;
  readonly transactions: Transactions;
  readonly clock: Clock;
}

/**
 * Removes one of the caller's passkeys; with its last one gone the user's `hasPasskey` is off, in
 * the same transaction. Never the last way in (`keepsAWayIn`: an account with no password and no
 * linked identity keeps its last passkey). The counts are taken under the lock of the user's row, so
 * two removals (or a removal and an unlink) at once cannot both think another way in is left.
 * Sessions it started stay until they end.
 *
 * @throws PasskeyNotFoundError when the caller has no passkey of that id (another user's is not found either).
 * @throws ConflictError when it is the account's last way to sign in.
 */
export class RemovePasskey {
  constructor(private readonly deps: RemovePasskeyDependencies) {}

  async execute(input: { readonly userId: string; readonly passkeyId: string }): Promise<void> {
    const { users, passkeys, identities, transactions, clock } = this.deps;
    const user = await users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    await transactions.run(async (tx) => {
      await users.lock(user.id, tx);
      const mine = await passkeys.listOf(user.id, tx);
      if (!mine.some((passkey) => passkey.id === input.passkeyId)) throw new PasskeyNotFoundError(input.passkeyId);
      const remaining = { passkeys: mine.length - 1, identities: await identities.countOf(user.id, tx) };
      if (!keepsAWayIn(user, remaining)) throw new ConflictError(lastWayIn('passkey'));
      await passkeys.remove(user.id, input.passkeyId, tx);
      if (remaining.passkeys === 0) await users.setSecondFactors(user.id, { hasPasskey: false }, clock.now(), tx);
    });
  }
}
