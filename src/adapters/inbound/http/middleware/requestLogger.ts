import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { RequestState } from '../state.js';

/**
 * One structured line per request: method, path, status, duration, request id, client IP and,
 * once authenticated, the user id; the trace id when the request is traced. Never a body, token or Authorization header. Also gives the
 * layers inside it their RequestState (request id, lazily built child logger and signal).
 */
export function requestLogger(logger: Logger): Middleware<RequestState> {
  return async (ctx, next) => {
    const started = performance.now();
    ctx.state = new RequestState(logger, ctx.state.requestId, ctx.state.traceId);
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
          duration_ms: performance.now() - started,
          request_id: ctx.state.requestId,
          ...(ctx.state.traceId === undefined ? {} : { trace_id: ctx.state.traceId }),
          ip: ctx.ip,
          ...(ctx.state.principal ? { user_id: ctx.state.principal.userId } : {}),
        };
        logger[level](line, 'request');
      }
    }
  };
}
