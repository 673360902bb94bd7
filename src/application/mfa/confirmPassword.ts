import { RateLimitedError, ValidationError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import { NoPasswordError } from '../../domain/user/UserErrors.js';
import type { LoginThrottle } from '../ports/LoginThrottle.js';
import type { PasswordHasher } from '../ports/PasswordHasher.js';
import { throttleKey } from '../auth/LoginAttempts.js';

/** What a `current_password` check takes. */
export interface PasswordConfirmation {
  readonly hasher: PasswordHasher;
  readonly throttle: LoginThrottle;
}

/**
 * Checks `password` as the caller's `current_password`, throttled like a login of the user's
 * e-mail from the caller's IP: a wrong one is a validation error on `current_password` and counts
 * as a failure; past the limit the answer is RateLimitedError; a right one resets the count. An
 * account without a password is refused with NoPasswordError.
 */
export async function confirmPassword(
  deps: PasswordConfirmation,
  user: User,
  password: string,
  clientIp: string,
): Promise<void> {
  if (!user.hasPassword) throw new NoPasswordError();
  const key = throttleKey(user.email, clientIp);
  const { blockedForSeconds } = await deps.throttle.status(key);
  if (blockedForSeconds !== undefined) throw new RateLimitedError(blockedForSeconds, 'too many failed attempts');
  if (!(await deps.hasher.verify(password, user.passwordHash))) {
    await deps.throttle.recordFailure(key);
    throw new ValidationError([{ field: 'current_password', message: 'is incorrect' }]);
  }
  await deps.throttle.reset(key);
}
