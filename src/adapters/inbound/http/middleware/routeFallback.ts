import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { methodNotAllowed, routeNotFound } from '../HttpProblem.js';
import type { RequestState } from '../state.js';

/**
 * Runs around the router: when nothing answered, a path known under other methods is 405 with
 * `Allow` (OPTIONS is answered 204 with `Allow`), any other path is 404 `route not found`.
 */
export function routeFallback(router: Router): Middleware<RequestState> {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return;
    const matched = router.match(ctx.path, ctx.method);
    const allow = new Set<string>();
    for (const layer of matched.path) for (const method of layer.methods) allow.add(method);
    if (allow.size === 0) throw routeNotFound();
    allow.add('OPTIONS');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', [...allow].join(', '));
      ctx.status = 204;
      return;
    }
    throw methodNotAllowed([...allow]);
  };
}
