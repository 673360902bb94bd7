import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '../../../../domain/shared/DomainError.js';
import type { RequestState } from '../state.js';

export interface RateLimitOptions {
  limiter: RateLimiterAbstract;
  /** Paths never counted (the health probes). */
  exemptPaths: readonly string[];
  logger: Logger;
  /** Told of each request refused with 429 (the rejections metric). */
  onRejected?: () => void;
}

function setHeaders(ctx: { set(name: string, value: string): void }, limit: number, res: RateLimiterRes): void {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
  ctx.set('X-RateLimit-Reset', String(Math.max(0, Math.ceil(res.msBeforeNext / 1000))));
}

/**
 * Limits requests per client IP. Every counted answer carries `X-RateLimit-*`; past the limit
 * the answer is 429 `RATE_LIMITED` with `Retry-After`. CORS preflights and health probes are
 * not counted. When the store fails (Redis down) requests pass, with a warning at most every 10 s.
 */
export function rateLimit(options: RateLimitOptions): Middleware<RequestState> {
  const exempt = new Set(options.exemptPaths);
  const limit = options.limiter.points;
  let lastWarning = 0;
  return async (ctx, next) => {
    const preflight = ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '';
    if (preflight || exempt.has(ctx.path)) return next();
    let res: RateLimiterRes;
    try {
      res = await options.limiter.consume(ctx.ip);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        setHeaders(ctx, limit, rejection);
        options.onRejected?.();
        throw new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      }
      const now = Date.now();
      if (now - lastWarning > 10_000) {
        lastWarning = now;
        options.logger.warn({ err: rejection }, 'rate limit store unavailable: letting requests through');
      }
      return next();
    }
    setHeaders(ctx, limit, res);
    return next();
  };
}
