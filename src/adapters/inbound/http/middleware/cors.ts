import koaCors from '@koa/cors';
import type { Context, Middleware } from 'koa';

export interface CorsOptions {
  /** `['*']` for any origin, otherwise the exact origins allowed. */
  allowedOrigins: readonly string[];
  allowedMethods: readonly string[];
  allowedHeaders: readonly string[];
  exposedHeaders: readonly string[];
  allowCredentials: boolean;
  maxAgeMs: number;
}

/**
 * Cross-origin headers from configuration, through `@koa/cors`. An origin outside the list gets
 * no CORS headers at all (the browser then refuses it); credentials are never combined with a
 * wildcard.
 *
 * What `@koa/cors` (v5) does with the options below: every answer says `Vary: Origin`; an answer
 * to an allowed origin (any, with `*`) carries `Access-Control-Allow-Origin` and the exposed
 * headers, and keeps them when a layer below throws (`keepHeadersOnError`: they go on
 * `err.headers`, which the error answer applies); a preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) is answered 204 with the allowed methods and headers and the
 * max age (none at 0); any other `OPTIONS` goes on like any request. No private-network or
 * secure-context headers (both off by default, left off).
 *
 * Everything is resolved here, once: the lists joined, the max age in seconds. With `*` the origin
 * is the string `'*'`, so no callback runs per request. With a list, the origin is a plain
 * synchronous lookup in a `Set` (an empty string for an origin outside it, which `@koa/cors` takes
 * as "no CORS headers"): a function is the only way `@koa/cors` allows a list, and the only per
 * request work it adds is that lookup and the `await` `@koa/cors` puts on it.
 *
 * `@koa/cors` with `credentials: true` and origin `*` echoes whatever `Origin` the request sends
 * (any site could then read answers with the user's cookies): refused here, at start-up, as the
 * configuration check refuses it too.
 */
export function cors(options: CorsOptions): Middleware {
  const any = options.allowedOrigins.includes('*');
  if (any && options.allowCredentials) {
    throw new Error('cors: credentials cannot be combined with the origin "*"; list the origins');
  }
  const allowed = new Set(options.allowedOrigins);
  const maxAge = Math.floor(options.maxAgeMs / 1000);
  return koaCors({
    origin: any ? '*' : (ctx: Context) => allowedOrigin(allowed, ctx.get('Origin')),
    credentials: options.allowCredentials,
    // Joined here; an empty string means the header is not sent (the allowed headers: the
    // preflight's own `Access-Control-Request-Headers` are echoed instead).
    allowMethods: options.allowedMethods.join(','),
    allowHeaders: options.allowedHeaders.join(','),
    exposeHeaders: options.exposedHeaders.join(','),
    ...(maxAge > 0 ? { maxAge } : {}),
    keepHeadersOnError: true,
    privateNetworkAccess: false,
    secureContext: false,
  });
}

/** The request's `Origin` when the list holds it exactly, else `''` (no CORS headers). */
function allowedOrigin(allowed: ReadonlySet<string>, origin: string): string {
  return allowed.has(origin) ? origin : '';
}
