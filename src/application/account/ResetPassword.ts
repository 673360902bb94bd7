import { InvalidAccountTokenError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';
import type { AccountLinks } from './AccountLinks.js';
import type { SessionEnder } from './SessionEnder.js';

/**
 * Sets a new password with an e-mailed reset token (docs/accounts.md). The token is spent, and so
 * is every other link of the user (reset and verification); every session of the user ends. Following the link proves
 * the address, so the e-mail counts as verified. A token whose address is no longer the user's is
 * invalid, like a spent, expired or malformed one.
 */
export class ResetPassword {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly links: AccountLinks,
    private readonly ender: SessionEnder,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly token: string; readonly password: string }): Promise<void> {
    const record = await this.links.redeem(input.token, 'password-reset');
    const user = await this.users.findById(record.userId);
    if (!user || user.email !== record.email) throw new InvalidAccountTokenError();
    const passwordHash = await this.hasher.hash(input.password);
    const now = this.clock.now();
    await this.users.update(user.with({ passwordHash }, now).withVerifiedEmail(now));
    // Every outstanding link, of both kinds: none may act on the account after this.
    await this.links.spendAll(user.id);
    await this.ender.endAll(user.id);
  }
}
