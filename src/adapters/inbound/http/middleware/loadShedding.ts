import type { Middleware } from 'koa';
import { overloaded } from '../HttpProblem.js';
import type { RequestState } from '../state.js';

export interface LoadSheddingOptions {
  /** Requests in progress past which a new one is refused (`server.max_in_flight`). */
  maxInFlight: number;
  /** Event-loop delay (ms) above which a new request is refused (`server.max_event_loop_delay`). */
  maxEventLoopDelayMs: number;
  /** The recent event-loop delay in ms (the shared monitor in production). */
  eventLoopDelayMs: () => number;
  /** Paths never refused nor counted (the health probes). */
  exemptPaths: readonly string[];
}

/**
 * Load shedding (CONTRACT §18): with `maxInFlight` requests already in progress, or while the
 * event loop is late by more than `maxEventLoopDelayMs`, a new request is answered 503
 * `OVERLOADED` with `Retry-After: 1` at once, without doing its work — so the requests admitted
 * finish in bounded time and the loop stays free for the health probes, which are never refused.
 */
export function loadShedding(options: LoadSheddingOptions): Middleware<RequestState> {
  const exempt = new Set(options.exemptPaths);
  let inFlight = 0;
  return async (ctx, next) => {
    if (exempt.has(ctx.path)) return next();
    if (inFlight >= options.maxInFlight || options.eventLoopDelayMs() > options.maxEventLoopDelayMs) throw overloaded();
    inFlight += 1;
    try {
      await next();
    } finally {
      inFlight -= 1;
    }
  };
}
