import { ConflictError } from '../../domain/shared/DomainError.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Transactions } from '../ports/Jobs.js';
import type { Clock } from '../ports/Clock.js';
import type { TotpStore } from '../ports/TotpStore.js';
import { confirmPassword, type PasswordConfirmation } from './confirmPassword.js';

export interface DisableTotpInput {
  readonly userId: string;
  readonly currentPassword: string;
  readonly clientIp: string;
}

/** What DisableTotp is given, by name. */
export interface DisableTotpDependencies extends PasswordConfirmation {
  readonly users: UserRepository;
  readonly totp: TotpStore;
  readonly transactions: Transactions;
  readonly clock: Clock;
}

/**
 * Turns TOTP off (or drops a secret never confirmed): with the right current password (throttled
 * like a login), the secret and every recovery code are deleted and the user's second factor is off,
 * in one transaction. A password then signs in alone again.
 *
 * @throws ValidationError on `current_password` when it is wrong; RateLimitedError past the throttle.
 * @throws ConflictError when TOTP is neither on nor started.
 */
export class DisableTotp {
  constructor(private readonly deps: DisableTotpDependencies) {}

  async execute(input: DisableTotpInput): Promise<void> {
    const { users, totp, transactions, clock } = this.deps;
    const user = await users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    await confirmPassword(this.deps, user, input.currentPassword, input.clientIp);
    await transactions.run(async (tx) => {
      if (!(await totp.remove(user.id, tx))) throw new ConflictError('TOTP is not on');
      await users.setSecondFactors(user.id, { mfaEnabled: false }, clock.now(), tx);
    });
  }
}
