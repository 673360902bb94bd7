import type Router from '@koa/router';
import type { Context } from 'koa';
import type { RequestState } from '../state.js';

/** The route of a request no route pattern matched: never the raw path, so metric series and span names stay few. */
export const UNMATCHED = 'unmatched';

/**
 * The routes of `router` whose pattern matches `path`, in the table's order, and with `method`
 * those that answer it. Read from the table's public `stack` (each route's `regexp` and
 * `methods`), not `router.match`, which `@koa/router` marks private.
 */
export function routesMatching(
  router: Router<RequestState>,
  path: string,
  method?: string,
): Router<RequestState>['stack'] {
  return router.stack.filter(
    (layer) =>
      layer.methods.length > 0 && (method === undefined || layer.methods.includes(method)) && layer.regexp.test(path),
  );
}

/** The pattern koa-router matched: its `routerPath`, set on the context when a route's path and method match. */
const matchedRoute = (ctx: object): string | undefined =>
  (ctx as { routerPath?: string | RegExp }).routerPath?.toString();

/**
 * The route pattern of a request once it is answered (`/api/v1/products/:id`), or `unmatched`.
 * Answers given before routing (429 rate limited, 503 shed) have the pattern their path would
 * have matched, looked up only for them and only when the answer is not 404/405, so a flood of
 * random paths stays `unmatched`.
 */
export function routePatterns(router: Router<RequestState>): (ctx: Context, status: number) => string {
  return (ctx, status) => {
    const matched = matchedRoute(ctx);
    if (matched !== undefined) return matched;
    if (status === 404 || status === 405) return UNMATCHED;
    // The router answers with the first route registered for the path and method (`/search` before `/:id`).
    const route = routesMatching(router, ctx.path, ctx.method)[0];
    return route ? String(route.path) : UNMATCHED;
  };
}
