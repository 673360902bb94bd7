import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { RequestState } from '../state.js';

/**
 * One structured line per request: method, path, status, duration, request id, client IP and,
 * once authenticated, the user id. Never a body, token or Authorization header.
 */
export function requestLogger(logger: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.state.log = logger.child({ request_id: ctx.state.requestId });
    try {
      await next();
    } finally {
      const status = ctx.status;
      const line = {
        method: ctx.method,
        path: ctx.path,
        status,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        request_id: ctx.state.requestId,
        ip: ctx.ip,
        ...(ctx.state.principal ? { user_id: ctx.state.principal.userId } : {}),
      };
      if (status >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    }
  };
}
