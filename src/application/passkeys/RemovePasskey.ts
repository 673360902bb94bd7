import { PasskeyNotFoundError, UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { Transactions } from '../ports/Jobs.js';
import type { PasskeyStore } from '../ports/PasskeyStore.js';

/** What RemovePasskey is given, by name. */
export interface RemovePasskeyDependencies {
  readonly users: UserRepository;
  readonly passkeys: PasskeyStore;
  readonly transactions: Transactions;
  readonly clock: Clock;
}

/**
 * Removes one of the caller's passkeys; with its last one gone the user's `hasPasskey` is off, in
 * the same transaction (the count is taken under the store's lock of the user's row, so two
 * removals at once cannot both think a passkey is left). Sessions it started stay until they end.
 *
 * @throws PasskeyNotFoundError when the caller has no passkey of that id (another user's is not found either).
 */
export class RemovePasskey {
  constructor(private readonly deps: RemovePasskeyDependencies) {}

  async execute(input: { readonly userId: string; readonly passkeyId: string }): Promise<void> {
    const { users, passkeys, transactions, clock } = this.deps;
    const user = await users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    await transactions.run(async (tx) => {
      if (!(await passkeys.remove(user.id, input.passkeyId, tx))) throw new PasskeyNotFoundError(input.passkeyId);
      const left = (await passkeys.countOf(user.id, tx)) > 0;
      if (left !== user.hasPasskey) await users.update(user.withPasskey(left, clock.now()), tx);
    });
  }
}
