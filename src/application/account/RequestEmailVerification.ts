import { ServiceUnavailableError } from '../../domain/shared/DomainError.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccountLinks } from './AccountLinks.js';

/**
 * Mails the caller a new verification link valid for 24 hours (docs/authentication.md), unless its e-mail is
 * verified already or 3 went out within the hour (then nothing is sent; the answer is the same).
 * The caller waits for the mail server: a mail that cannot be handed over is a 503.
 */
export class RequestEmailVerification {
  constructor(
    private readonly users: UserRepository,
    private readonly links: AccountLinks,
  ) {}

  async execute(input: { readonly userId: string; readonly clientIp: string }): Promise<void> {
    const user = await this.users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    if (user.emailVerified) return;
    try {
      await this.links.send(user, 'email-verification', { ip: input.clientIp });
    } catch (error) {
      if (error instanceof ServiceUnavailableError) throw error;
      throw new ServiceUnavailableError('mail could not be sent');
    }
  }
}
