import type { Context } from 'koa';
import { mapError } from '../../errorTable.js';
import type { RequestState } from '../../state.js';

/**
 * The recovery step of the spine: turns anything thrown inside it — domain errors, HTTP problems,
 * bugs — into the one error envelope. Unknown errors are logged with their stack and answered 500
 * `INTERNAL_ERROR`, with nothing internal in the body. Headers already on the answer (security,
 * request id, CORS, rate limit) stay; the error table's are added.
 */
export function recover(ctx: Context & { state: RequestState }, error: unknown): void {
  const mapped = mapError(error);
  if (mapped.internal) ctx.state.log.error({ err: error }, 'unhandled error');
  ctx.set(mapped.headers);
  ctx.status = mapped.status;
  ctx.body = mapped.body;
}
