import type Koa from 'koa';
import type { Middleware } from 'koa';

/** A header name and its value. */
export type Header = readonly [name: string, value: string];

export interface SecurityHeaderOptions {
  /** `server.security_headers`: `false` gives none (only for the benchmark's comparison run). */
  enabled: boolean;
  /** `server.hsts`: `Strict-Transport-Security` too, for a service reached over HTTPS only. */
  hsts: boolean;
}

/**
 * The headers every answer carries (README: Metrics and Tracing), the app's and those Node's parser makes the
 * server write on the socket alike. No `Cross-Origin-Resource-Policy` here: the JSON API is read
 * by browser apps on other origins; the pages add their own policy (see `contentSecurityPolicy.ts`).
 */
export function securityHeaderList(options: SecurityHeaderOptions): readonly Header[] {
  if (!options.enabled) return [];
  const headers: Header[] = [
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'no-referrer'],
    ['X-Frame-Options', 'DENY'],
  ];
  if (options.hsts) headers.push(['Strict-Transport-Security', 'max-age=31536000; includeSubDomains']);
  return headers;
}

/**
 * Sets `headers` on every answer; first in the chain. Set before the rest runs, so they stay on
 * what recovery answers (it only adds headers); {@link keepOnKoaErrors} covers Koa's own error
 * answer, which removes every header first. No async frame of its own: it is in every request's path.
 */
export function securityHeaders(headers: readonly Header[]): Middleware {
  return (ctx, next) => {
    const res = ctx.res;
    for (const [name, value] of headers) res.setHeader(name, value);
    return next();
  };
}

/**
 * Koa answers an error that escapes the middleware (one thrown above recovery: the request logger,
 * a failing log destination) itself: it removes every header, then sets the error's `headers`.
 * Those get `headers` first, so even that answer carries them.
 */
export function keepOnKoaErrors(app: Pick<Koa, 'context'>, headers: readonly Header[]): void {
  if (headers.length === 0) return;
  const onerror = app.context.onerror;
  app.context.onerror = function (this: Koa.Context, error: unknown) {
    // Nothing to answer, as Koa's own handler does for it (`ctx.onerror` doubles as a node-style callback).
    if (error === null || error === undefined) return;
    const target = error instanceof Error ? error : new Error(`non-error thrown: ${String(error)}`);
    const own = (target as { headers?: unknown }).headers;
    (target as { headers?: unknown }).headers = {
      ...Object.fromEntries(headers),
      ...(typeof own === 'object' ? own : {}),
    };
    onerror.call(this, target);
  };
}
