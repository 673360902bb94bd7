import { InvalidAccountTokenError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';
import type { AccountLinks } from './AccountLinks.js';
import type { SessionEnder } from './SessionEnder.js';

/** What ResetPassword is given, by name. */
export interface ResetPasswordDependencies {
  readonly users: UserRepository;
  readonly hasher: PasswordHasher;
  readonly links: AccountLinks;
  readonly ender: SessionEnder;
  readonly clock: Clock;
}

/**
 * Sets a new password with an e-mailed reset token (docs/accounts.md). The token is spent, and so
 * is every other link of the user (reset and verification); every session of the user ends. Following the link proves
 * the address, so the e-mail counts as verified. A token whose address is no longer the user's is
 * invalid, like a spent, expired or malformed one.
 */
export class ResetPassword {
  constructor(private readonly deps: ResetPasswordDependencies) {}

  async execute(input: { readonly token: string; readonly password: string }): Promise<void> {
    const { links, users, hasher, clock, ender } = this.deps;
    const record = await links.redeem(input.token, 'password-reset');
    const user = await users.findById(record.userId);
    if (!user || user.email !== record.email) throw new InvalidAccountTokenError();
    const passwordHash = await hasher.hash(input.password);
    const now = clock.now();
    await users.update(user.with({ passwordHash }, now).withVerifiedEmail(now));
    // Every outstanding link, of both kinds: none may act on the account after this.
    await links.spendAll(user.id);
    await ender.endAll(user.id);
  }
}
