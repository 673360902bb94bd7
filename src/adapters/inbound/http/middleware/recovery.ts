import type { Middleware } from 'koa';
import { mapError } from '../errorTable.js';
import type { RequestState } from '../state.js';

/**
 * Turns anything thrown below it — domain errors, HTTP problems, bugs — into the one error
 * envelope. Unknown errors are logged with their stack and answered 500 `INTERNAL_ERROR`,
 * with nothing internal in the body.
 */
export function recovery(): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const mapped = mapError(error);
      if (mapped.internal) ctx.state.log.error({ err: error }, 'unhandled error');
      // Headers that middleware attached to the error (CORS keeps its headers this way).
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
  };
}
