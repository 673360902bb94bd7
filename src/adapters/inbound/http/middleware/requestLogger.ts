import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { RequestState } from '../state.js';

/**
 * One structured line per request: method, path, status, duration, request id, client IP and,
 * once authenticated, the user id. Never a body, token or Authorization header.
 * `ctx.state.log` (a child logger carrying the request id) is only built when something logs.
 */
export function requestLogger(logger: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    let child: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      get: () => (child ??= logger.child({ request_id: ctx.state.requestId })),
      enumerable: true,
      configurable: true,
    });
    try {
      await next();
    } finally {
      const status = ctx.status;
      const level = status >= 500 ? 'error' : 'info';
      if (logger.isLevelEnabled(level)) {
        const line = {
          method: ctx.method,
          path: ctx.path,
          status,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          request_id: ctx.state.requestId,
          ip: ctx.ip,
          ...(ctx.state.principal ? { user_id: ctx.state.principal.userId } : {}),
        };
        logger[level](line, 'request');
      }
    }
  };
}
