import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccountLinks } from './AccountLinks.js';

/**
 * "Forgot password" (docs/authentication.md): when the e-mail belongs to a user, a reset link valid for an
 * hour is mailed (at most 3 an hour to one address, and a bounded number an hour per client IP). The caller learns nothing either way: the same answer after
 * the same work (one lookup), the mail going out in the background.
 */
export class RequestPasswordReset {
  constructor(
    private readonly users: UserRepository,
    private readonly links: AccountLinks,
  ) {}

  async execute(input: { readonly email: string; readonly clientIp: string }): Promise<void> {
    const user = await this.users.findByEmail(input.email);
    if (user) this.links.sendLater(user, 'password-reset', { ip: input.clientIp });
  }
}
