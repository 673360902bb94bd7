import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LoginThrottle } from '../../../application/ports/LoginThrottle.js';

/**
 * Login attempts counted on rate-limiter-flexible (memory, or Redis shared by all instances):
 * `limiter.points` attempts per window, each taken atomically before the password is checked,
 * the count cleared by a success. When the store is unavailable logins are not blocked (the
 * password check still protects the account).
 */
export class RateLimiterLoginThrottle implements LoginThrottle {
  constructor(private readonly limiter: RateLimiterAbstract) {}

  async attempt(key: string): Promise<number | undefined> {
    try {
      await this.limiter.consume(key);
      return undefined;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      return undefined; // store unavailable: fail open
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
