import { RateLimitedError, UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import { EmailNotVerifiedError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { LoginThrottle } from '../ports/LoginThrottle.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';
import type { AccountLinks } from '../account/AccountLinks.js';
import type { SignInGate, SignInOutcome } from '../mfa/SignInGate.js';

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
}

/**
 * Logs a user in. Unknown e-mail and wrong password fail the same way (`invalid credentials`)
 * after the same work (one hash comparison). Failures count against the e-mail and address; once
 * the pair has used up its failures it is refused with RateLimitedError until the window passes,
 * even with the right password. A success resets the count. Concurrent attempts cannot overrun
 * the limit (see `admit`). With a VerifiedEmailRequirement, the right password of a user whose
 * e-mail is not verified is answered EmailNotVerifiedError (after the password check, so it reveals
 * nothing to a guesser), and a new verification link goes out (within the mail limit). A right
 * password goes through the SignInGate: a session signed in to by `pwd`, or, for a user with a
 * second factor, a challenge and no tokens.
 */
export class LoginUser {
  /** Password checks running per key, and who waits for one to finish. */
  private readonly running = new Map<string, { count: number; waiting: (() => void)[] }>();
  /** Made once at construction, so no login request pays for an extra hash. */
  private readonly decoyHash: Promise<string>;

  constructor(private readonly deps: LoginUserDependencies) {
    this.decoyHash = deps.hasher.hash(DECOY_PASSWORD);
    void this.decoyHash.catch(() => undefined); // a failure surfaces at the first unknown-e-mail login
  }

  async execute(input: LoginUserInput): Promise<{ user: User; outcome: SignInOutcome }> {
    const { users, hasher, throttle, requirement, gate } = this.deps;
    const key = `${input.email}|${input.clientIp}`;
    await this.admit(key);
    try {
      const user = await users.findByEmail(input.email);
      const matches = user
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
    } finally {
      this.release(key);
    }
  }

  /**
   * Lets a check for `key` start only while fewer checks are running than the key has failures
   * left, so concurrent guesses can never exceed the limit, yet concurrent correct logins are
   * never refused: extra ones wait for a running check to finish, then look again.
   */
  private async admit(key: string): Promise<void> {
    for (;;) {
      const { blockedForSeconds, remaining } = await this.deps.throttle.status(key);
      if (blockedForSeconds !== undefined) throw new RateLimitedError(blockedForSeconds, 'too many failed logins');
      const gate = this.running.get(key) ?? { count: 0, waiting: [] };
      if (gate.count < remaining) {
        gate.count += 1;
        this.running.set(key, gate);
        return;
      }
      await new Promise<void>((resolve) => gate.waiting.push(resolve));
    }
  }

  private release(key: string): void {
    const gate = this.running.get(key);
    if (!gate) return;
    gate.count -= 1;
    const waiting = gate.waiting.splice(0);
    if (gate.count === 0 && waiting.length === 0) this.running.delete(key);
    for (const wake of waiting) wake();
  }
}
