import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * A Redis client that never queues commands while disconnected (callers fail fast and fail
 * open) and keeps reconnecting in the background. Connection errors are logged, throttled.
 */
export function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let lastWarning = 0;
  redis.on('error', (error: Error) => {
    const now = Date.now();
    if (now - lastWarning > 10_000) {
      lastWarning = now;
      logger.warn({ err: { message: error.message } }, 'redis connection problem');
    }
  });
  return redis;
}
