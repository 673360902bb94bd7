import type Router from '@koa/router';
import type { Context } from 'koa';
import { methodNotAllowed, routeNotFound } from '../../HttpProblem.js';
import { routesMatching } from '../routePattern.js';
import type { RequestState } from '../../state.js';

/**
 * The fallback step of the spine, for a request the router left unanswered (no body, status 404):
 * a path known under other methods is 405 with `Allow` (OPTIONS is answered 204 with `Allow`),
 * any other path is 404 `route not found`. A literal route wins over a parameter: `Allow` for
 * `/products/search` lists the methods of `/products/search` only, not those of `/products/:id`
 * (which never takes `search` for an id).
 */
export function routeFallback(router: Router<RequestState>): (ctx: Context) => void {
  return (ctx) => {
    const routes = routesMatching(router, ctx.path);
    const fewestParams = Math.min(...routes.map((layer) => layer.paramNames.length));
    const allow = new Set<string>();
    for (const layer of routes)
      if (layer.paramNames.length === fewestParams) for (const method of layer.methods) allow.add(method);
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
