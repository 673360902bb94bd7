import Router from '@koa/router';
import type { Middleware } from 'koa';
import { routesMatching } from './routePattern.js';
import type { RequestState } from '../state.js';

type Layer = Router<RequestState>['stack'][number];

/** How many leading segments (after the first `/`) key a path's bucket: `/api/v1/products`. */
const KEY_SEGMENTS = 3;

/**
 * The bucket of a request path: its number of `/` and its first {@link KEY_SEGMENTS} segments
 * (`4/api/v1/products` for `/api/v1/products/123`). A route whose pattern has the same count and
 * the same literal first segments is the only kind that can match the path: a `:param` never
 * spans a `/`, and the router is case-sensitive and strict about a trailing slash.
 */
function bucketOf(path: string): string {
  let slashes = 0;
  let cut = -1;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) {
    slashes += 1;
    if (slashes === KEY_SEGMENTS + 1) cut = at;
  }
  return `${slashes}${cut === -1 ? path : path.slice(0, cut)}`;
}

/** A pattern made of literal segments and whole-segment `:params` only: it has one shape. */
const FIXED_SHAPE = /^(?:\/(?:[^/:*?+(){}]+|:[A-Za-z_$][\w$]*))+$/;

/**
 * The bucket of a route pattern, or `undefined` when it has none: a pattern of no fixed shape
 * (a wildcard, an optional part, a RegExp), or one with a parameter among its key segments.
 */
function bucketOfPattern(pattern: string | RegExp): string | undefined {
  if (typeof pattern !== 'string' || !FIXED_SHAPE.test(pattern)) return undefined;
  const bucket = bucketOf(pattern);
  return bucket.includes(':') ? undefined : bucket;
}

/** A route pattern with no parameter at all: it matches one path, itself. */
const isLiteral = (pattern: string | RegExp): pattern is string =>
  typeof pattern === 'string' && FIXED_SHAPE.test(pattern) && !pattern.includes(':');

/**
 * A router holding `layers`, in their order, registered again through the router's public verbs
 * with the route table's own options, paths, names and middleware.
 */
function subRouter(table: Router<RequestState>, layers: readonly Layer[]): Middleware<RequestState> {
  const router = new Router<RequestState>(table.opts);
  for (const layer of layers) {
    const middleware = layer.stack as Parameters<typeof router.get>[1][];
    const path = layer.path as string;
    const name = layer.name ?? null;
    const add = (verb: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options'): void => {
      if (name === null) router[verb](path, ...(middleware as [Parameters<typeof router.get>[1]]));
      else router[verb](name, path, ...(middleware as [Parameters<typeof router.get>[1]]));
    };
    for (const method of layer.methods) {
      if (method === 'HEAD' && layer.methods.includes('GET')) continue; // `get` adds HEAD itself
      add(method.toLowerCase() as Parameters<typeof add>[0]);
    }
  }
  return router.routes() as Middleware<RequestState>;
}

const VERBS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Dispatch by path in front of the route table (docs/adr/0031-one-spine.md). `@koa/router` tests
 * every route's pattern against every request, and stays the route table: the API document, the
 * 404/405 fallback and the metrics' route names read it. This builds, once, a router per literal
 * path and per bucket of paths ({@link bucketOf}), each holding only the routes that can match
 * such a path, in the table's order; a request then costs one `Map` lookup and the patterns of its
 * bucket (those of the same shape as `/api/v1/products/:id`). A path no route can match, or
 * one no bucket covers, goes to the whole table as before. Public API only: the table's `stack`,
 * `opts`, and each route's `path`, `methods`, `name`, `stack` and `regexp`, registered again
 * through `get`/`post`/….
 *
 * A table this cannot split (a route added with `use`, a method outside the HTTP verbs) is used as
 * it is.
 */
export function routeLookup(table: Router<RequestState>): Middleware<RequestState> {
  const whole = table.routes() as Middleware<RequestState>;
  const layers = table.stack;
  if (layers.some((layer) => layer.methods.length === 0 || layer.methods.some((method) => !VERBS.has(method)))) {
    return whole;
  }
  const buckets = layers.map((layer) => bucketOfPattern(layer.path));
  const byPath = new Map<string, Middleware<RequestState>>();
  for (const path of new Set(layers.map((layer) => layer.path).filter(isLiteral))) {
    byPath.set(path, subRouter(table, routesMatching(table, path)));
  }
  const byBucket = new Map<string, Middleware<RequestState>>();
  for (const bucket of new Set(buckets)) {
    if (bucket === undefined) continue;
    // The bucket's own routes, and every route of no fixed shape, in the table's order.
    const held = layers.filter((_, at) => buckets[at] === bucket || buckets[at] === undefined);
    byBucket.set(bucket, subRouter(table, held));
  }
  return (ctx, next) => {
    const path = ctx.path;
    const routes = byPath.get(path) ?? byBucket.get(bucketOf(path)) ?? whole;
    return routes(ctx, next);
  };
}
