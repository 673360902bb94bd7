import type { Context } from 'koa';
import { mapError } from '../errorTable.js';
import type { RequestState } from '../state.js';

/**
 * The recovery step of the spine: turns anything thrown inside it — domain errors, HTTP problems,
 * bugs — into the one error envelope. Unknown errors are logged with their stack and answered 500
 * `INTERNAL_ERROR`, with nothing internal in the body. Headers already on the answer (security,
 * request id, CORS, rate limit) stay; the error's own are added.
 */
export function recover(ctx: Context & { state: RequestState }, error: unknown): void {
  const mapped = mapError(error);
  if (mapped.internal) ctx.state.log.error({ err: error }, 'unhandled error');
  // Headers a library attached to the error (http-errors' `headers`).
  const attached = typeof error === 'object' && error !== null && 'headers' in error ? error.headers : undefined;
  if (attached && typeof attached === 'object') {
    for (const [name, value] of Object.entries(attached as Record<string, unknown>)) {
      if (typeof value === 'string') ctx.set(name, value);
    }
  }
  ctx.set(mapped.headers);
  ctx.status = mapped.status;
  ctx.body = mapped.body;
}
