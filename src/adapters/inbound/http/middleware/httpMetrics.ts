import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ServiceMetrics } from '../../metrics/ServiceMetrics.js';
import type { RequestState } from '../state.js';

/** The route label of a request no route pattern matched: never the raw path, so series stay bounded. */
export const UNMATCHED = 'unmatched';

/** The pattern koa-router matched (it sets `_matchedRoute` when a route's path and method match). */
const matchedRoute = (ctx: object): string | undefined => (ctx as { _matchedRoute?: string | RegExp })._matchedRoute?.toString();

/**
 * Counts every answer under `{method, route, status}` and observes its duration, and keeps the
 * requests in flight. Runs just inside the request id, so answers given before routing (429 rate
 * limited, 503 shed) are counted too: for those the pattern their path would have matched is
 * looked up (only for them, and only when the answer is not 404/405, so a flood of random paths
 * stays `unmatched`).
 */
export function httpMetrics(metrics: ServiceMetrics, router: Router<RequestState>): Middleware<RequestState> {
  const routeOf = (ctx: Parameters<Middleware<RequestState>>[0], status: number): string => {
    const matched = matchedRoute(ctx);
    if (matched !== undefined) return matched;
    if (status === 404 || status === 405) return UNMATCHED;
    const layers = router.match(ctx.path, ctx.method).pathAndMethod;
    for (let i = layers.length - 1; i >= 0; i -= 1) if (layers[i]!.methods.length > 0) return String(layers[i]!.path);
    return UNMATCHED;
  };
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
