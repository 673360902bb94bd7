import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LoginThrottle, ThrottleStatus } from '../../../application/ports/LoginThrottle.js';

/**
 * Failed logins counted on rate-limiter-flexible (memory, or Redis shared by all instances):
 * `limiter.points` failures per window. When the store is unavailable logins are not blocked
 * (the password check still protects the account).
 */
export class RateLimiterLoginThrottle implements LoginThrottle {
  constructor(private readonly limiter: RateLimiterAbstract) {}

  async status(key: string): Promise<ThrottleStatus> {
    const max = this.limiter.points;
    try {
      const res = await this.limiter.get(key);
      const failures = res?.consumedPoints ?? 0;
      if (!res || failures < max) return { blockedForSeconds: undefined, remaining: max - failures };
      return { blockedForSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)), remaining: 0 };
    } catch {
      return { blockedForSeconds: undefined, remaining: max }; // store unavailable: fail open
    }
  }

  async recordFailure(key: string): Promise<void> {
    try {
      await this.limiter.penalty(key, 1);
    } catch {
      // Store unavailable: nothing to count with.
    }
  }

  async reset(key: string): Promise<void> {
    try {
      await this.limiter.delete(key);
    } catch {
      // Store unavailable: the entry expires with its window anyway.
    }
  }
}
