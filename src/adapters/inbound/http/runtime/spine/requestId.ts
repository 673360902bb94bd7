import type { Context } from 'koa';

const ACCEPTABLE = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request id step of the spine: the caller's `X-Request-ID` when it is safe to echo and log,
 * otherwise a new one; set on the answer and returned for the request's state.
 */
export function requestIds(newId: () => string): (ctx: Context) => string {
  return (ctx) => {
    const incoming = ctx.req.headers['x-request-id'];
    const id = typeof incoming === 'string' && ACCEPTABLE.test(incoming) ? incoming : newId();
    ctx.res.setHeader('X-Request-ID', id);
    return id;
  };
}
