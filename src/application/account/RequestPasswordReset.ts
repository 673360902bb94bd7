import type { AccountLinks } from './AccountLinks.js';

/**
 * "Forgot password" (docs/authentication.md): when the e-mail belongs to a user, a reset link valid
 * for an hour is mailed (at most 3 an hour to one address, and a bounded number an hour per client
 * IP). The caller learns nothing either way: the same answer after the same work — one job stored,
 * naming the address; the job looks the address up after the answer.
 */
export class RequestPasswordReset {
  constructor(private readonly links: AccountLinks) {}

  async execute(input: { readonly email: string; readonly clientIp: string }): Promise<void> {
    await this.links.request({ email: input.email }, 'password-reset', { ip: input.clientIp });
  }
}
