import { ValidationError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import { EmailAlreadyRegisteredError, UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccountLinks } from '../account/AccountLinks.js';
import type { SessionEnder } from '../account/SessionEnder.js';
import type { Clock } from '../ports/Clock.js';
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
}

/**
 * Updates the caller's names, e-mail and password. A new password needs the right current
 * password (else a validation error on `current_password`) and ends every other session of the
 * user; a taken e-mail is a conflict; a new e-mail is unverified and is mailed a verification link.
 */
export class UpdateProfile {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly ender: SessionEnder,
    private readonly links: AccountLinks,
  ) {}

  async execute(input: UpdateProfileInput): Promise<User> {
    const user = await this.users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    let passwordHash: string | undefined;
    if (input.password !== undefined) {
      if (input.currentPassword === undefined) {
        throw new ValidationError([{ field: 'current_password', message: 'is required to change the password' }]);
      }
      if (!(await this.hasher.verify(input.currentPassword, user.passwordHash))) {
        throw new ValidationError([{ field: 'current_password', message: 'is incorrect' }]);
      }
      passwordHash = await this.hasher.hash(input.password);
    }
    if (input.email !== undefined && input.email !== user.email) {
      const owner = await this.users.findByEmail(input.email);
      if (owner && owner.id !== user.id) throw new EmailAlreadyRegisteredError();
    }
    const updated = user.with(
      {
        ...(input.firstName !== undefined ? { firstName: input.firstName } : {}),
        ...(input.lastName !== undefined ? { lastName: input.lastName } : {}),
        ...(input.email !== undefined ? { email: input.email } : {}),
        ...(passwordHash !== undefined ? { passwordHash } : {}),
      },
      this.clock.now(),
    );
    await this.users.update(updated);
    if (passwordHash !== undefined) await this.ender.endAll(updated.id, input.sessionId);
    if (updated.email !== user.email) this.links.sendLater(updated, 'email-verification');
    return updated;
  }
}
