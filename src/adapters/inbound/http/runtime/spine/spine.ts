import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { RequestState } from '../../state.js';
import type { BodyStep } from './bodyParser.js';
import type { CorsStep } from './cors.js';
import type { AnswerMeter } from './httpMetrics.js';
import type { LoadShedding } from './loadShedding.js';
import type { RateLimitStep } from './rateLimit.js';
import { recover } from './recovery.js';
import type { requestLog } from './requestLogger.js';
import { writeSecurityHeaders, type Header } from './securityHeaders.js';
import type { TimeoutStep } from './timeout.js';

/** The steps of the spine, each built once from configuration by its own module in this folder. */
export interface SpineSteps {
  /** Written on every answer, first thing (`securityHeaders.ts`); empty: none. */
  securityHeaders: readonly Header[];
  /** The request's id, set on the answer (`requestId.ts`). */
  requestId: (ctx: Parameters<Middleware>[0]) => string;
  /** The root logger the request's own child logger comes from (`state.ts`). */
  logger: Logger;
  /** Absent: no metrics (`httpMetrics.ts`). */
  metrics?: AnswerMeter;
  /** The request's log line (`requestLogger.ts`). */
  log: ReturnType<typeof requestLog>;
  cors: CorsStep;
  /** Absent: never shed (`loadShedding.ts`). */
  shedding?: Pick<LoadShedding, 'admit' | 'turn' | 'release'>;
  /** Absent: no rate limit (`rateLimit.ts`). */
  rateLimit?: RateLimitStep;
  timeout: TimeoutStep;
  body: BodyStep;
  /** For a request the router left unanswered: 404 or 405 (`routeFallback.ts`). */
  fallback: (ctx: Parameters<Middleware>[0]) => void;
}

/**
 * The outer layers of every request as one async frame (docs/adr/0031-one-spine.md). In order:
 *
 * 1. prelude, for every request: security headers, request id, the request's state, metrics start;
 * 2. inside recovery (anything thrown from here on is answered in the error envelope):
 *    CORS (a preflight is answered here) → load shedding (503, and the turn budget) → rate limit
 *    (429) → timeout around [body parser → `next` (the router) → fallback (404/405)];
 * 3. completion, for every answer, once its status is final: shedding's release, metrics, the log
 *    line.
 *
 * Each step is a small named unit in this folder; this function only says when each runs. The
 * steps a request does not need cost a branch: no promise is awaited for a request without a
 * body, a rate limiter or a turn to wait for.
 */
export function spine(steps: SpineSteps): Middleware<RequestState> {
  const { securityHeaders, requestId, logger, metrics, log, cors, shedding, rateLimit, timeout, body, fallback } =
    steps;
  return async function spine(ctx, next) {
    const started = performance.now();
    writeSecurityHeaders(ctx.res, securityHeaders);
    // The tracing middleware, when on, runs outside the spine and leaves the trace id here.
    ctx.state = new RequestState(logger, requestId(ctx), (ctx.state as { traceId?: string }).traceId);
    metrics?.started();
    let admitted = false;
    // An error that escapes recovery itself is answered by Koa (`keepOnKoaErrors`) as a 500.
    let status = 500;
    try {
      try {
        if (await cors(ctx)) {
          status = ctx.status;
          return;
        }
        admitted = shedding?.admit(ctx) ?? false;
        if (admitted) {
          const turn = shedding?.turn();
          if (turn) await turn;
        }
        const counting = rateLimit?.(ctx);
        if (counting) await counting;
        await timeout(ctx, () => {
          const parsing = body(ctx);
          return parsing ? parsing.then(() => next()) : next();
        });
        if (ctx.body === undefined && ctx.status === 404) fallback(ctx);
      } catch (error) {
        recover(ctx, error);
      }
      status = ctx.status;
    } finally {
      if (admitted) shedding?.release();
      const ms = performance.now() - started;
      metrics?.ended(ctx, status, ms / 1000);
      log(ctx, status, ms);
    }
  };
}
