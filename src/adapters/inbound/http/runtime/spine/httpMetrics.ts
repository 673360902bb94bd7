import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ServiceMetrics } from '../../../metrics/ServiceMetrics.js';
import { routePatterns } from '../routePattern.js';
import type { RequestState } from '../../state.js';

/** The metrics step of the spine: told when a request starts and when its answer is final. */
export interface AnswerMeter {
  started(): void;
  ended(ctx: Context, status: number, seconds: number): void;
}

/**
 * Counts every answer under `{method, route, status}` and observes its duration, and keeps the
 * requests in flight. The spine tells it of every answer, those given before routing (429 rate
 * limited, 503 shed, a CORS preflight) too, under the pattern their path would have matched
 * (routePatterns).
 */
export function httpMetrics(metrics: ServiceMetrics, router: Router<RequestState>): AnswerMeter {
  const routeOf = routePatterns(router);
  return {
    started: () => metrics.requestStarted(),
    ended: (ctx, status, seconds) => metrics.requestEnded(ctx.method, routeOf(ctx, status), status, seconds),
  };
}
