import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LoginThrottle } from '../../../application/ports/LoginThrottle.js';

/**
 * Failed-login counting on rate-limiter-flexible (memory, or Redis shared by all instances).
 * `limiter.points` is the number of failures allowed per window. When the store is unavailable
 * logins are not blocked (the password check still protects the account).
 */
export class RateLimiterLoginThrottle implements LoginThrottle {
  constructor(private readonly limiter: RateLimiterAbstract) {}

  async blockedFor(key: string): Promise<number | undefined> {
    try {
      const res = await this.limiter.get(key);
      if (!res || res.consumedPoints < this.limiter.points) return undefined;
      return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    } catch {
      return undefined;
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
