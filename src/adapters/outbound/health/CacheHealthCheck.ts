import type { Redis } from 'ioredis';
import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/** `cache`: PING to Redis. A client that is not connected is `down` at once, never queued. */
export class CacheHealthCheck implements HealthCheck {
  readonly name = 'cache';

  constructor(private readonly redis: Redis) {}

  async check(): Promise<CheckOutcome> {
    if (this.redis.status !== 'ready') return { status: 'down', message: 'cache not connected' };
    try {
      const reply = await this.redis.ping();
      return reply === 'PONG' ? { status: 'up' } : { status: 'down', message: 'unexpected PING reply' };
    } catch {
      return { status: 'down', message: 'cache unreachable' };
    }
  }
}
