import type { Redis } from 'ioredis';

/** Keeps something of every instance in step through Redis pub/sub (the access policy, the user cache). */
export interface InstanceSync {
  /** Resolves true once subscribed, false if that takes longer than `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * A Redis connection of its own, for a subscription or a publisher that must not lose a message
 * during a short outage: its commands wait for the connection (ioredis re-subscribes after a
 * reconnect), and its errors are left to the main client to report.
 */
export function ownConnection(redis: Redis): Redis {
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  subscriber.on('error', () => undefined);
  return subscriber;
}

/** `ready` of an InstanceSync whose subscription is `subscribed`. */
export const readyOnce =
  (subscribed: Promise<unknown>) =>
  (timeoutMs: number): Promise<boolean> =>
    new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(() => resolve(false), timeoutMs).unref();
      subscribed.then(
        () => {
          clearTimeout(timer);
          resolve(true);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
