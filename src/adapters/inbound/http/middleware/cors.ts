import type { Middleware } from 'koa';
import vary from 'vary';

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
 * Cross-origin headers from configuration. An origin outside the list gets no CORS headers
 * at all (the browser then refuses it); credentials are never combined with a wildcard.
 *
 * What `@koa/cors` did, with every header value worked out once, here, instead of on each
 * request (it parsed and re-wrote `Vary`, and awaited the origin callback, on every request: a
 * twentieth of an authenticated GET's time). Every answer says `Vary: Origin`. An answer to an
 * allowed origin (any, with `*`) carries `Access-Control-Allow-Origin` and the exposed headers,
 * and keeps them when a layer below throws (`err.headers`, which the error answer applies). A
 * preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 here with the
 * allowed methods and headers and the max age; any other `OPTIONS` goes on like any request.
 */
export function cors(options: CorsOptions): Middleware {
  const any = options.allowedOrigins.includes('*');
  const allowed = new Set(options.allowedOrigins);
  const credentials = options.allowCredentials;
  const exposed = options.exposedHeaders.join(',');
  const methods = options.allowedMethods.join(',');
  const allowedHeaders = options.allowedHeaders.join(',');
  const maxAge = String(Math.floor(options.maxAgeMs / 1000));

  return (ctx, next) => {
    const existing = ctx.response.get('Vary') as string | undefined;
    ctx.set('Vary', existing ? vary.append(existing, 'Origin') : 'Origin');
    const origin = any ? '*' : allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : '';
    if (origin === '') return next();

    if (ctx.method === 'OPTIONS') {
      if (!ctx.get('Access-Control-Request-Method')) return next();
      ctx.set('Access-Control-Allow-Origin', origin);
      if (credentials) ctx.set('Access-Control-Allow-Credentials', 'true');
      if (maxAge !== '0') ctx.set('Access-Control-Max-Age', maxAge);
      if (methods !== '') ctx.set('Access-Control-Allow-Methods', methods);
      const requested = allowedHeaders !== '' ? allowedHeaders : ctx.get('Access-Control-Request-Headers');
      if (requested) ctx.set('Access-Control-Allow-Headers', requested);
      ctx.status = 204;
      return Promise.resolve();
    }

    const headers: Record<string, string> = { 'Access-Control-Allow-Origin': origin };
    if (credentials) headers['Access-Control-Allow-Credentials'] = 'true';
    if (exposed !== '') headers['Access-Control-Expose-Headers'] = exposed;
    ctx.set(headers);
    return next().catch((error: unknown) => {
      // Kept on the error answer, as Koa and `recovery` apply `err.headers`.
      if (typeof error === 'object' && error !== null) {
        const own = (error as { headers?: Record<string, string> }).headers ?? {};
        const varied = vary.append(own.vary ?? own.Vary ?? '', 'Origin');
        delete own.Vary;
        (error as { headers?: Record<string, string> }).headers = { ...own, ...headers, vary: varied };
      }
      throw error;
    });
  };
}
