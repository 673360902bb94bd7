/**
 * An expected failure with a stable, transport-independent `code`.
 * Inbound adapters map codes to HTTP statuses or GraphQL extensions; the domain knows nothing of either.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  /** Optional extra detail safe to show to a client (e.g. `id: 42`). */
  readonly detail: string | undefined;

  protected constructor(message: string, detail?: string) {
    super(message);
    this.name = new.target.name;
    this.detail = detail;
  }
}

/** One failing field of a validation, named by its client-facing name. */
export interface FieldViolation {
  readonly field: string;
  readonly message: string;
}

/** Input broke one or more rules; every failing field is listed at once. */
export class ValidationError extends DomainError {
  readonly code = 'VALIDATION_ERROR';
  constructor(readonly fields: readonly FieldViolation[]) {
    super('validation failed');
  }
}

/** A resource with this id does not exist (or the id is not a valid id). */
export class NotFoundError extends DomainError {
  readonly code = 'NOT_FOUND';
  constructor(resource: string, id: string) {
    super(`${resource} not found`, `id: ${id}`);
  }
}

/** The request conflicts with the current state (taken e-mail, lost optimistic-lock race, self-demotion). */
export class ConflictError extends DomainError {
  readonly code = 'CONFLICT';
  constructor(message: string, detail?: string) {
    super(message, detail);
  }
}

/**
 * A value that must be unique (a `unique` field, or any unique index of the store) is another
 * row's already: a 409 `CONFLICT` naming each such field by its client-facing name.
 */
export class NotUniqueError extends ConflictError {
  constructor(readonly fields: readonly FieldViolation[]) {
    super('not unique');
  }
}

/** A conditional request's expectation no longer holds (e.g. the version it names is not the current one). */
export class PreconditionFailedError extends DomainError {
  readonly code = 'PRECONDITION_FAILED';
  constructor(message: string, detail?: string) {
    super(message, detail);
  }
}

/** The caller is not authenticated (or the credentials are wrong). */
export class UnauthorizedError extends DomainError {
  readonly code = 'UNAUTHORIZED';
  constructor(message = 'unauthorized') {
    super(message);
  }
}

/** The caller is authenticated but not allowed. */
export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN';
  constructor(message = 'forbidden') {
    super(message);
  }
}

/** The caller is sending too much; `retryAfterSeconds` says when to try again. */
export class RateLimitedError extends DomainError {
  readonly code = 'RATE_LIMITED';
  constructor(
    readonly retryAfterSeconds: number,
    message = 'too many requests',
  ) {
    super(message);
  }
}

/** A dependency (database, cache) cannot be reached right now. */
export class ServiceUnavailableError extends DomainError {
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(message = 'service unavailable') {
    super(message);
  }
}

/** The database's storage has no room left for a write (a 503, like any unavailable dependency). */
export class StorageFullError extends ServiceUnavailableError {
  constructor() {
    super('storage is full');
  }
}
