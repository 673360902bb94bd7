import { UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import { EmailNotVerifiedError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { LoginThrottle } from '../ports/LoginThrottle.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';
import type { AccountLinks } from '../account/AccountLinks.js';
import type { SignInGate, SignInOutcome } from '../mfa/SignInGate.js';
import { LoginAttempts, throttleKey } from './LoginAttempts.js';

export interface LoginUserInput {
  readonly email: string;
  readonly password: string;
  /** The client's address: failures are counted per e-mail and address. */
  readonly clientIp: string;
  /** The client's `User-Agent`, for the sessions list. */
  readonly userAgent: string | null;
}

/** Login refused to unverified e-mails (`auth.require_verified_email`), which are sent a new link instead. */
export interface VerifiedEmailRequirement {
  readonly links: AccountLinks;
}

/** A password no one has: unknown e-mails are compared against its hash to spend the same time. */
const DECOY_PASSWORD = 'portico-decoy-password-never-valid';

/** What LoginUser is given, by name. */
export interface LoginUserDependencies {
  readonly users: UserRepository;
  readonly hasher: PasswordHasher;
  readonly throttle: LoginThrottle;
  /** Where a right password leads: a session, or a second-factor challenge. */
  readonly gate: SignInGate;
  readonly requirement?: VerifiedEmailRequirement;
  /** The bound on concurrent checks per throttle key, shared with the second factor's; its own if not given. */
  readonly attempts?: LoginAttempts;
}

/**
 * Logs a user in. Unknown e-mail, wrong password and an account without a password (one an identity
 * provider made) fail the same way (`invalid credentials`) after the same work (one hash comparison). Failures count against the e-mail and address; once
 * the pair has used up its failures it is refused with RateLimitedError until the window passes,
 * even with the right password. A success resets the count. Concurrent attempts cannot overrun
 * the limit (LoginAttempts). With a VerifiedEmailRequirement, the right password of a user whose
 * e-mail is not verified is answered EmailNotVerifiedError (after the password check, so it reveals
 * nothing to a guesser), and a new verification link goes out (within the mail limit). A right
 * password goes through the SignInGate: a session signed in to by `pwd`, or, for a user with a
 * second factor, a challenge and no tokens.
 */
export class LoginUser {
  private readonly attempts: LoginAttempts;
  /** Made once at construction, so no login request pays for an extra hash. */
  private readonly decoyHash: Promise<string>;

  constructor(private readonly deps: LoginUserDependencies) {
    this.attempts = deps.attempts ?? new LoginAttempts(deps.throttle);
    this.decoyHash = deps.hasher.hash(DECOY_PASSWORD);
    void this.decoyHash.catch(() => undefined); // a failure surfaces at the first unknown-e-mail login
  }

  async execute(input: LoginUserInput): Promise<{ user: User; outcome: SignInOutcome }> {
    const { users, hasher, throttle, requirement, gate } = this.deps;
    const key = throttleKey(input.email, input.clientIp);
    return this.attempts.run(key, 'too many failed logins', async () => {
      const user = await users.findByEmail(input.email);
      // An unknown e-mail, or an account without a password, spends the same comparison and fails.
      const matches = user?.hasPassword
        ? await hasher.verify(input.password, user.passwordHash)
        : (await hasher.verify(input.password, await this.decoyHash), false);
      if (!user || !matches) {
        await throttle.recordFailure(key);
        throw new UnauthorizedError('invalid credentials');
      }
      await throttle.reset(key);
      if (requirement && !user.emailVerified) {
        await requirement.links.request({ userId: user.id }, 'email-verification', { ip: input.clientIp });
        throw new EmailNotVerifiedError('a verification link has been sent to the address (at most 3 an hour)');
      }
      const client = { userAgent: input.userAgent, ip: input.clientIp };
      return { user, outcome: await gate.pass(user, ['pwd'], client) };
    });
  }
}
