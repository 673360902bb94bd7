/**
 * A failure that belongs to HTTP itself (unparsable body, unknown route, wrong method, timeout...),
 * raised by the inbound adapter's own middleware. Domain failures are DomainErrors instead.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'HttpProblem';
  }
}

export const badRequestBody = (): HttpProblem => new HttpProblem(400, 'BAD_REQUEST', 'invalid request body');
export const routeNotFound = (): HttpProblem => new HttpProblem(404, 'NOT_FOUND', 'route not found');
export const methodNotAllowed = (allow: readonly string[]): HttpProblem =>
  new HttpProblem(405, 'METHOD_NOT_ALLOWED', 'method not allowed', { Allow: allow.join(', ') });
export const payloadTooLarge = (limitBytes: number): HttpProblem =>
  new HttpProblem(413, 'PAYLOAD_TOO_LARGE', 'request body too large', {}, `limit: ${limitBytes} bytes`);
export const unsupportedMediaType = (): HttpProblem =>
  new HttpProblem(415, 'UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
export const requestTimedOut = (): HttpProblem => new HttpProblem(503, 'TIMEOUT', 'request timed out');
export const overloaded = (): HttpProblem =>
  new HttpProblem(503, 'OVERLOADED', 'service overloaded, retry later', { 'Retry-After': '1' });
