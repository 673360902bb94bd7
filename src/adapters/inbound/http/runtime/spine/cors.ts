import koaCors from '@koa/cors';
import type { Context } from 'koa';

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
 * The CORS step of the spine: resolves to `true` when it answered the request itself (a
 * preflight), `false` when the request goes on.
 */
export type CorsStep = (ctx: Context) => Promise<boolean>;

/**
 * Cross-origin headers from configuration, through `@koa/cors`. An origin outside the list gets
 * no CORS headers at all (the browser then refuses it); credentials are never combined with a
 * wildcard.
 *
 * What `@koa/cors` (v5) does with the options below: every answer says `Vary: Origin`; an answer
 * to an allowed origin (any, with `*`) carries `Access-Control-Allow-Origin` and the exposed
 * headers; a preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with the
 * allowed methods and headers and the max age (none at 0); any other `OPTIONS` goes on like any
 * request. No private-network or secure-context headers (both off by default, left off).
 *
 * The spine runs the library's middleware as a step, with a `next` that only notes the request
 * goes on: what it sets is on the answer before anything below runs, and an error answer keeps
 * it (recovery only adds headers), so `keepHeadersOnError` (which copies them onto a thrown
 * error) has nothing to do and is off.
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
export function cors(options: CorsOptions): CorsStep {
  const any = options.allowedOrigins.includes('*');
  if (any && options.allowCredentials) {
    throw new Error('cors: credentials cannot be combined with the origin "*"; list the origins');
  }
  const allowed = new Set(options.allowedOrigins);
  const maxAge = Math.floor(options.maxAgeMs / 1000);
  const middleware = koaCors({
    origin: any ? '*' : (ctx: Context) => allowedOrigin(allowed, ctx.get('Origin')),
    credentials: options.allowCredentials,
    // Joined here; an empty string means the header is not sent (the allowed headers: the
    // preflight's own `Access-Control-Request-Headers` are echoed instead).
    allowMethods: options.allowedMethods.join(','),
    allowHeaders: options.allowedHeaders.join(','),
    exposeHeaders: options.exposedHeaders.join(','),
    ...(maxAge > 0 ? { maxAge } : {}),
    keepHeadersOnError: false,
    privateNetworkAccess: false,
    secureContext: false,
  });
  return async (ctx) => {
    let goesOn = false;
    await middleware(ctx, () => {
      goesOn = true;
      return Promise.resolve();
    });
    return !goesOn;
  };
}

/** The request's `Origin` when the list holds it exactly, else `''` (no CORS headers). */
function allowedOrigin(allowed: ReadonlySet<string>, origin: string): string {
  return allowed.has(origin) ? origin : '';
}
