import { ConflictError, DomainError, NotFoundError, ValidationError } from '../shared/DomainError.js';

export class UserNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('User', id);
  }
}

export class EmailAlreadyRegisteredError extends ConflictError {
  constructor() {
    super('email already registered');
  }
}

/** No active session of the caller has this id (docs/authentication.md). */
export class SessionNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Session', id);
  }
}

/**
 * An e-mailed token that is malformed, unknown, spent, expired, or made for another purpose; one
 * error for all, so a client learns nothing about which (docs/authentication.md).
 */
export class InvalidAccountTokenError extends DomainError {
  readonly code = 'INVALID_TOKEN';
  constructor() {
    super('invalid or expired token');
  }
}

/** Login refused until the user follows a verification link (`auth.require_verified_email`). */
export class EmailNotVerifiedError extends DomainError {
  readonly code = 'EMAIL_NOT_VERIFIED';
  constructor(detail?: string) {
    super('email not verified', detail);
  }
}

/**
 * The caller's role needs a second factor (`auth.mfa.required_roles`) and the caller has none yet:
 * only enrolment is open to it (docs/authentication.md).
 */
export class MfaEnrollmentRequiredError extends DomainError {
  readonly code = 'MFA_ENROLLMENT_REQUIRED';
  constructor() {
    super('a second factor must be enrolled first');
  }
}

/** A second-factor code (TOTP or recovery code) that is wrong, replayed or already used. */
export class InvalidSecondFactorError extends DomainError {
  readonly code = 'UNAUTHORIZED';
  constructor() {
    super('invalid code');
  }
}

/**
 * A `current_password` asked of an account that has none (one an identity provider made): nothing
 * to check it against. A password reset (`POST /api/v1/auth/password/forgot`) sets one.
 */
export class NoPasswordError extends ValidationError {
  constructor() {
    super([
      {
        field: 'current_password',
        message:
          'cannot be checked: the account has no password; set one with a password reset (POST /api/v1/auth/password/forgot)',
      },
    ]);
  }
}

/** The caller has no passkey of this id (docs/authentication.md). */
export class PasskeyNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('Passkey', id);
  }
}

/**
 * A passkey sign-in refused: an unknown credential, a signature, origin or RP id that does not
 * verify, a counter that did not move forward, or no user verification where it is required.
 */
export class PasskeyRefusedError extends DomainError {
  readonly code = 'UNAUTHORIZED';
  constructor(message = 'invalid passkey') {
    super(message);
  }
}
