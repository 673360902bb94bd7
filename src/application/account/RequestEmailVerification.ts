import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccountLinks } from './AccountLinks.js';

/**
 * Mails the caller a new verification link valid for 24 hours (docs/authentication.md), unless its
 * e-mail is verified already or 3 went out within the hour (then nothing is sent; the answer is the
 * same). The link and its mail are a job stored before the answer: a mail server that is down
 * delays the mail (retried), never the answer.
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
    await this.links.request({ userId: user.id }, 'email-verification', { ip: input.clientIp });
  }
}
