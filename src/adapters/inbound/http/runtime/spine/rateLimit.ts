import type { Context } from 'koa';
import type { Logger } from 'pino';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '../../../../../domain/shared/DomainError.js';

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

/** The rate limit step of the spine: `undefined` for a request it does not count, else its count's promise. */
export type RateLimitStep = (ctx: Context) => Promise<void> | undefined;

/**
 * Limits requests per client IP. Every counted answer carries `X-RateLimit-*`; past the limit
 * the answer is 429 `RATE_LIMITED` with `Retry-After`. CORS preflights and health probes are
 * not counted. When the store fails (Redis down) requests pass, with a warning at most every 10 s.
 */
export function rateLimit(options: RateLimitOptions): RateLimitStep {
  const exempt = new Set(options.exemptPaths);
  const limit = options.limiter.points;
  let lastWarning = 0;
  const count = async (ctx: Context): Promise<void> => {
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
      return;
    }
    setHeaders(ctx, limit, res);
  };
  return (ctx) => {
    const preflight = ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '';
    return preflight || exempt.has(ctx.path) ? undefined : count(ctx);
  };
}
