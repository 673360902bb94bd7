import { ConflictError, DomainError, NotFoundError } from '../shared/DomainError.js';

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
