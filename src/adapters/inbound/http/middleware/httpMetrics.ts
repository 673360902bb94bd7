import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ServiceMetrics } from '../../metrics/ServiceMetrics.js';
import { routePatterns } from '../routePattern.js';
import type { RequestState } from '../state.js';

/**
 * Counts every answer under `{method, route, status}` and observes its duration, and keeps the
 * requests in flight. Runs just inside the request id, so answers given before routing (429 rate
 * limited, 503 shed) are counted too, under the pattern their path would have matched (routePatterns).
 */
export function httpMetrics(metrics: ServiceMetrics, router: Router<RequestState>): Middleware<RequestState> {
  const routeOf = routePatterns(router);
  return async (ctx, next) => {
    const started = performance.now();
    metrics.requestStarted();
    let status = 500;
    try {
      await next();
      status = ctx.status;
    } finally {
      metrics.requestEnded(ctx.method, routeOf(ctx, status), status, (performance.now() - started) / 1000);
    }
  };
}
