import koaCors from '@koa/cors';
import type { Middleware } from 'koa';

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
 */
export function cors(options: CorsOptions): Middleware {
  const any = options.allowedOrigins.includes('*');
  const allowed = new Set(options.allowedOrigins);
  return koaCors({
    origin: (ctx) => {
      if (any) return '*';
      const origin = ctx.get('Origin');
      return allowed.has(origin) ? origin : '';
    },
    allowMethods: [...options.allowedMethods],
    allowHeaders: [...options.allowedHeaders],
    exposeHeaders: [...options.exposedHeaders],
    credentials: options.allowCredentials,
    maxAge: Math.floor(options.maxAgeMs / 1000),
    keepHeadersOnError: true,
  });
}
