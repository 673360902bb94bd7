import { DomainError, NotUniqueError, RateLimitedError, ValidationError } from '../../../domain/shared/DomainError.js';
import { HttpProblem } from './HttpProblem.js';

/** The REST error body: the seed's form B plus `success`. */
export interface ErrorBody {
  success: false;
  error: {
    code: string;
    message: string;
    detail?: string;
    fields?: { field: string; message: string }[];
  };
}

/** How one error is answered. `internal` errors are logged with their stack. */
export interface MappedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  internal: boolean;
}

/** Domain error code → HTTP status. The only place domain codes meet HTTP. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  INVALID_TOKEN: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  EMAIL_NOT_VERIFIED: 403,
  MFA_ENROLLMENT_REQUIRED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
};

/** Status → code, for errors thrown by Koa or its libraries (`http-errors` with `expose`). */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

const INTERNAL: MappedError['body'] = {
  success: false,
  error: { code: 'INTERNAL_ERROR', message: 'internal server error' },
};

function body(code: string, message: string, detail?: string): ErrorBody {
  return { success: false, error: detail === undefined ? { code, message } : { code, message, detail } };
}

/** The string headers an `http-errors` error carries (`headers`), to answer with it. */
function headersOf(error: object): Record<string, string> {
  const attached = 'headers' in error ? error.headers : undefined;
  if (typeof attached !== 'object' || attached === null) return {};
  return Object.fromEntries(
    Object.entries(attached as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/**
 * Maps anything thrown to its status, body and headers. Unknown errors become 500
 * `INTERNAL_ERROR` and their message never leaves the process.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof HttpProblem) {
    return {
      status: error.status,
      body: body(error.code, error.message, error.detail),
      headers: { ...error.headers },
      internal: false,
    };
  }
  if (error instanceof DomainError) {
    const status = STATUS_BY_CODE[error.code];
    if (status === undefined) return { status: 500, body: INTERNAL, headers: {}, internal: true };
    const mapped = body(error.code, error.message, error.detail);
    if (error instanceof ValidationError || error instanceof NotUniqueError)
      mapped.error.fields = error.fields.map((f) => ({ field: f.field, message: f.message }));
    const headers: Record<string, string> = {};
    if (error instanceof RateLimitedError)
      headers['Retry-After'] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
    return { status, body: mapped, headers, internal: false };
  }
  // Errors from Koa itself or its libraries that are meant for the client (http-errors' `expose`).
  if (typeof error === 'object' && error !== null && 'status' in error && 'expose' in error && error.expose === true) {
    const status = Number(error.status);
    const code = CODE_BY_STATUS[status];
    if (code !== undefined) {
      const message = error instanceof Error ? error.message.toLowerCase() : code.toLowerCase();
      return { status, body: body(code, message), headers: headersOf(error), internal: false };
    }
  }
  return { status: 500, body: INTERNAL, headers: {}, internal: true };
}
