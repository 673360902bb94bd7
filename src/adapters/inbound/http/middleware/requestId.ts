import type { Middleware } from 'koa';
import type { RequestState } from '../state.js';

const ACCEPTABLE = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Propagates the caller's `X-Request-ID` when it is safe to echo and log, otherwise makes a new
 * one; every response carries it.
 */
export function requestId(newId: () => string): Middleware<RequestState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-ID');
    const id = ACCEPTABLE.test(incoming) ? incoming : newId();
    (ctx.state as { requestId: string }).requestId = id;
    ctx.set('X-Request-ID', id);
    await next();
  };
}
