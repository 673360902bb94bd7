import type { Logger } from 'pino';
import { BentoCacheAdapter } from '../../adapters/outbound/cache/BentoCacheAdapter.js';
import type { Cache } from '../../application/ports/Cache.js';
import type { Config } from '../config/schema.js';

/**
 * The process's one cache (ADR 0042): memory only, or — with `redis.url`, in a process that serves —
 * memory + Redis + the invalidation bus, shared with every other instance on that Redis. Redis
 * connection problems are logged, throttled; they never fail a call.
 */
export function openCache(config: Config, logger: Logger, shared: boolean): Cache {
  let lastWarning = 0;
  return new BentoCacheAdapter({
    prefix: 'portico',
    redisUrl: shared ? config.redis.url : '',
    onRedisError: (error) => {
      const now = Date.now();
      if (now - lastWarning > 10_000) {
        lastWarning = now;
        logger.warn(
          { err: { message: error.message } },
          'cache: redis connection problem (memory and the database serve)',
        );
      }
    },
  });
}
