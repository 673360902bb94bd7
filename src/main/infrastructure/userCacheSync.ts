import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { UserChanges } from '../../adapters/outbound/cache/UserChanges.js';
import { readyOnce, ownConnection, type InstanceSync } from './instanceSync.js';

const CHANNEL = 'portico:users';
/** How long a write waits for Redis to take its announcement; past it the other caches' TTL bounds the delay. */
const PUBLISH_TIMEOUT_MS = 500;

/**
 * Keeps the user caches of every instance in step through Redis pub/sub (ADR 0021, 0024): each
 * change of a user (a write through the user cache, an ended session) is published before it is
 * answered, and a message from another instance makes this one forget that user, so a user deleted
 * or given another role, or a session ended, on one instance is seen as such by the next request to
 * any other. A message missed while Redis is away is covered
 * by the cache's TTL (one second), which is then the bound, as it is without Redis.
 * `ready(ms)` resolves true once subscribed (false if that takes longer); `stop` stops listening.
 */
export function syncUserCache(changes: UserChanges, redis: Redis, logger: Logger): InstanceSync {
  const instance = randomUUID();
  const subscriber = ownConnection(redis);
  subscriber.on('message', (_channel: string, message: string) => {
    const [sender, id] = message.split(' ');
    if (sender !== instance && id) changes.forget(id);
  });
  // Nothing is cached before the service listens, so nothing read before the subscription is stale.
  const subscribed = subscriber.subscribe(CHANNEL).then(
    () => undefined,
    (error: unknown) => {
      logger.warn({ err: { message: (error as Error).message } }, 'user changes will not reach this instance');
    },
  );
  // The main client fails fast while Redis is away (no offline queue): a write is never held up long.
  let lastWarning = 0;
  changes.publishTo(async (id) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        redis.publish(CHANNEL, `${instance} ${id}`),
        new Promise(
          (_, reject) => (timer = setTimeout(() => reject(new Error('publish timed out')), PUBLISH_TIMEOUT_MS)),
        ),
      ]);
    } catch (error) {
      const now = Date.now();
      if (now - lastWarning > 10_000) {
        lastWarning = now;
        logger.warn({ err: { message: (error as Error).message } }, 'could not tell other instances of a user change');
      }
    } finally {
      clearTimeout(timer);
    }
  });
  return {
    ready: readyOnce(subscribed),
    stop: async () => {
      subscriber.disconnect();
    },
  };
}
