import type { User } from '../../domain/user/User.js';
import { InvalidAccountTokenError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { AccountLinks } from './AccountLinks.js';

/**
 * Marks the e-mail verified with an e-mailed verification token (docs/authentication.md). The token proves
 * only the address it was sent to: once the user's e-mail has changed it is invalid. Every other
 * verification link of the user is spent with it.
 */
export class ConfirmEmail {
  constructor(
    private readonly users: UserRepository,
    private readonly links: AccountLinks,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly token: string }): Promise<User> {
    const record = await this.links.redeem(input.token, 'email-verification');
    const user = await this.users.findById(record.userId);
    if (!user || user.email !== record.email) throw new InvalidAccountTokenError();
    const verified = user.emailVerified ? user : user.withVerifiedEmail(this.clock.now());
    if (verified !== user) await this.users.update(verified);
    await this.links.spendAll(user.id, 'email-verification');
    return verified;
  }
}
