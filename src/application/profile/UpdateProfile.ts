import { RateLimitedError, ValidationError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import { EmailAlreadyRegisteredError, NoPasswordError, UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccountLinks } from '../account/AccountLinks.js';
import type { SessionEnder } from '../account/SessionEnder.js';
import type { Clock } from '../ports/Clock.js';
import type { Transactions } from '../ports/Jobs.js';
import type { LoginThrottle } from '../ports/LoginThrottle.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';

/** Validated changes; absent fields stay unchanged. The role is never among them. */
export interface UpdateProfileInput {
  readonly userId: string;
  /** The caller's session: a new password ends every other one. */
  readonly sessionId: string;
  readonly firstName?: string;
  readonly lastName?: string;
  readonly email?: string;
  readonly password?: string;
  readonly currentPassword?: string;
  /** The caller's IP: wrong `current_password` attempts count toward the login throttle of (e-mail, IP). */
  readonly clientIp: string;
}

/** What UpdateProfile is given, by name. */
export interface UpdateProfileDependencies {
  readonly users: UserRepository;
  readonly hasher: PasswordHasher;
  readonly clock: Clock;
  readonly ender: SessionEnder;
  readonly links: AccountLinks;
  readonly throttle: LoginThrottle;
  readonly transactions: Transactions;
}

/**
 * Updates the caller's names, e-mail and password. A new password or a new e-mail needs the right
 * current password (else a validation error on `current_password`; an account without a password is
 * refused with NoPasswordError: a password reset sets its first one); wrong attempts count toward the
 * login throttle of the user's e-mail and the caller's IP, and past it the answer is RateLimitedError,
 * so a stolen access token cannot guess its way to the account. A new password ends every other
 * session and spends every outstanding e-mailed link; a taken e-mail is a conflict; a new e-mail is
 * unverified and is mailed a verification link, and the old address gets a notice.
 */
export class UpdateProfile {
  constructor(private readonly deps: UpdateProfileDependencies) {}

  async execute(input: UpdateProfileInput): Promise<User> {
    const user = await this.deps.users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    const changesEmail = input.email !== undefined && input.email !== user.email;
    if (input.password !== undefined) await this.checkCurrentPassword(user, input, 'password');
    else if (changesEmail) await this.checkCurrentPassword(user, input, 'e-mail');
    const passwordHash = input.password !== undefined ? await this.deps.hasher.hash(input.password) : undefined;
    if (changesEmail) {
      const owner = await this.deps.users.findByEmail(input.email!);
      if (owner && owner.id !== user.id) throw new EmailAlreadyRegisteredError();
    }
    const updated = user.with(
      {
        ...(input.firstName !== undefined ? { firstName: input.firstName } : {}),
        ...(input.lastName !== undefined ? { lastName: input.lastName } : {}),
        ...(input.email !== undefined ? { email: input.email } : {}),
        ...(passwordHash !== undefined ? { passwordHash } : {}),
      },
      this.deps.clock.now(),
    );
    // The change and the mails it owes in one transaction: a notice to the old address and a link
    // to the new one exactly when the new address is stored.
    await this.deps.transactions.run(async (tx) => {
      await this.deps.users.update(updated, tx);
      if (updated.email !== user.email) {
        await this.deps.links.notice(user, tx);
        await this.deps.links.request({ userId: updated.id }, 'email-verification', { ip: input.clientIp }, tx);
      }
    });
    if (passwordHash !== undefined) {
      await this.deps.links.spendAll(updated.id);
      await this.deps.ender.endAll(updated.id, input.sessionId);
    }
    return updated;
  }

  /** The current password, throttled like a login of the user's e-mail from the caller's IP. */
  private async checkCurrentPassword(user: User, input: UpdateProfileInput, what: string): Promise<void> {
    if (!user.hasPassword) throw new NoPasswordError();
    if (input.currentPassword === undefined) {
      throw new ValidationError([{ field: 'current_password', message: `is required to change the ${what}` }]);
    }
    const key = `${user.email}|${input.clientIp}`;
    const { blockedForSeconds } = await this.deps.throttle.status(key);
    if (blockedForSeconds !== undefined) throw new RateLimitedError(blockedForSeconds, 'too many failed attempts');
    if (!(await this.deps.hasher.verify(input.currentPassword, user.passwordHash))) {
      await this.deps.throttle.recordFailure(key);
      throw new ValidationError([{ field: 'current_password', message: 'is incorrect' }]);
    }
    await this.deps.throttle.reset(key);
  }
}
