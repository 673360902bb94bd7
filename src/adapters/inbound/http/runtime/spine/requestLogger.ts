import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { RequestState } from '../../state.js';

/**
 * The request log step of the spine: one structured line per answer — method, path, status,
 * duration, request id, client IP and, once authenticated, the user id; the trace id when the
 * request is traced. Never a body, token or Authorization header. 5xx answers at `error`, the
 * rest at `info`; nothing is built when the level is off.
 */
export function requestLog(
  logger: Logger,
): (ctx: Context & { state: RequestState }, status: number, ms: number) => void {
  return (ctx, status, ms) => {
    const level = status >= 500 ? 'error' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const state = ctx.state;
    const line = {
      method: ctx.method,
      path: ctx.path,
      status,
      duration_ms: ms,
      request_id: state.requestId,
      ...(state.traceId === undefined ? {} : { trace_id: state.traceId }),
      ip: ctx.ip,
      ...(state.principal ? { user_id: state.principal.userId } : {}),
    };
    logger[level](line, 'request');
  };
}
