import { ConflictError } from '../../domain/shared/DomainError.js';
import { UserNotFoundError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { OneTimePasswords } from '../ports/OneTimePasswords.js';
import type { SecretBox } from '../ports/SecretBox.js';
import type { TotpStore } from '../ports/TotpStore.js';
import { confirmPassword, type PasswordConfirmation } from './confirmPassword.js';

export interface StartTotpInput {
  readonly userId: string;
  readonly currentPassword: string;
  readonly clientIp: string;
}

/** What StartTotp is given, by name. */
export interface StartTotpDependencies extends PasswordConfirmation {
  readonly users: UserRepository;
  readonly totp: TotpStore;
  readonly otp: OneTimePasswords;
  readonly box: SecretBox;
  readonly clock: Clock;
  /** The issuer an authenticator app shows beside the account (`jwt.issuer`). */
  readonly issuerName: string;
}

/**
 * Starts turning TOTP on: with the right current password (throttled like a login), makes a new
 * secret, stores it sealed (never in the clear) and unconfirmed, and answers it with its
 * `otpauth://` URI. Nothing changes for sign-in until ConfirmTotp; starting again replaces an
 * unconfirmed secret.
 *
 * @throws ValidationError on `current_password` when it is wrong; RateLimitedError past the throttle.
 * @throws ConflictError when TOTP is already on.
 */
export class StartTotp {
  constructor(private readonly deps: StartTotpDependencies) {}

  async execute(input: StartTotpInput): Promise<{ secret: string; otpauthUri: string }> {
    const { users, totp, otp, box, clock, issuerName } = this.deps;
    const user = await users.findById(input.userId);
    if (!user) throw new UserNotFoundError(input.userId);
    await confirmPassword(this.deps, user, input.currentPassword, input.clientIp);
    const secret = otp.newSecret();
    const begun = await totp.begin({
      userId: user.id,
      sealedSecret: box.seal(secret, user.id),
      confirmedAt: null,
      lastUsedStep: null,
      createdAt: clock.now(),
    });
    if (!begun) throw new ConflictError('TOTP is already on');
    return { secret, otpauthUri: otp.uri(secret, user.email, issuerName) };
  }
}
