import { RateLimitedError, UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { LoginThrottle } from '../ports/LoginThrottle.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';
import type { SessionIssuer, TokenPair } from './SessionIssuer.js';

export interface LoginUserInput {
  readonly email: string;
  readonly password: string;
  /** The client's address: failures are counted per e-mail and address. */
  readonly clientIp: string;
}

/** A password no one has: unknown e-mails are compared against its hash to spend the same time. */
const DECOY_PASSWORD = 'portico-decoy-password-never-valid';

/**
 * Logs a user in. Unknown e-mail and wrong password fail the same way (`invalid credentials`)
 * after the same work (one hash comparison). Every attempt counts against its e-mail and address;
 * once the pair has used up its failures it is refused with RateLimitedError until the window
 * passes, even with the right password. A success resets the count.
 */
export class LoginUser {
  /** Made once at construction, so no login request pays for an extra hash. */
  private readonly decoyHash: Promise<string>;

  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly sessions: SessionIssuer,
  ) {
    this.decoyHash = hasher.hash(DECOY_PASSWORD);
    void this.decoyHash.catch(() => undefined); // a failure surfaces at the first unknown-e-mail login
  }

  async execute(input: LoginUserInput): Promise<{ user: User; tokens: TokenPair }> {
    const key = `${input.email}|${input.clientIp}`;
    // Counted before the password check, so parallel guesses cannot all slip under the limit.
    const blockedFor = await this.throttle.attempt(key);
    if (blockedFor !== undefined) throw new RateLimitedError(blockedFor, 'too many failed logins');
    const user = await this.users.findByEmail(input.email);
    const matches = user
      ? await this.hasher.verify(input.password, user.passwordHash)
      : (await this.hasher.verify(input.password, await this.decoyHash), false);
    if (!user || !matches) throw new UnauthorizedError('invalid credentials');
    await this.throttle.reset(key);
    return { user, tokens: await this.sessions.issue(user) };
  }
}
