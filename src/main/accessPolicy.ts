import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CasbinAccessPolicy } from '../adapters/outbound/access/CasbinAccessPolicy.js';
import { parsePolicyCsv } from '../adapters/outbound/access/PolicyRuleStore.js';
import type { Database } from '../adapters/outbound/mikroorm/database.js';
import { MikroOrmPolicyRuleStore } from '../adapters/outbound/mikroorm/MikroOrmPolicyRuleStore.js';
import type { Config } from './config/schema.js';

/** A start-up problem whose message is one clear line naming the key at fault. */
export class StartupError extends Error {}

function readText(key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new StartupError(`${key}: cannot read ${JSON.stringify(path)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The casbin policy: model from `access.model`, rules from the database, seeded from `access.policy` once. */
export async function loadAccessPolicy(config: Config, database: Database): Promise<CasbinAccessPolicy> {
  const model = readText('access.model', config.access.model);
  let seed;
  try {
    seed = parsePolicyCsv(readText('access.policy', config.access.policy));
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`access.policy: ${(error as Error).message}`);
  }
  try {
    return await CasbinAccessPolicy.create(model, new MikroOrmPolicyRuleStore(database.orm), seed);
  } catch (error) {
    throw new StartupError(`access.model: ${JSON.stringify(config.access.model)} is not a valid casbin model (${(error as Error).message.split('\n')[0]})`);
  }
}

const CHANNEL = 'portico:access-policy';

/**
 * Keeps the policy of every instance in step through Redis pub/sub: each local change is
 * published; a message from another instance makes this one reload its rules from the database.
 * `ready(ms)` resolves true once subscribed (false if that takes longer); `stop` stops listening.
 */
export function syncAccessPolicy(
  policy: CasbinAccessPolicy,
  redis: Redis,
  logger: Logger,
): { ready(timeoutMs: number): Promise<boolean>; stop(): Promise<void> } {
  const instance = randomUUID();
  // Subscriptions wait for the connection (and ioredis re-subscribes after a reconnect).
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  subscriber.on('error', () => undefined); // the main client already reports connection problems
  const reload = (why: string) =>
    policy.reload().catch((error: unknown) => logger.error({ err: error, why }, 'access policy reload failed'));
  subscriber.on('message', (_channel: string, sender: string) => {
    if (sender !== instance) void reload('changed by another instance');
  });
  let connectedBefore = false;
  subscriber.on('ready', () => {
    // Changes published while this instance was cut off from Redis were missed: re-read them.
    if (connectedBefore) void reload('reconnected to Redis');
    connectedBefore = true;
  });
  // The rules were loaded before the subscription existed: re-read them once it does, so a
  // change made by another instance in between is not missed.
  const subscribed = subscriber.subscribe(CHANNEL).then(
    () => reload('subscribed'),
    (error: unknown) => {
      logger.warn({ err: { message: (error as Error).message } }, 'access policy changes will not reach this instance');
    },
  );
  // Publishing queues while Redis reconnects, so a change made during a short outage still goes out.
  const publisher = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  publisher.on('error', () => undefined);
  policy.subscribe(() => {
    publisher.publish(CHANNEL, instance).catch((error: unknown) => logger.warn({ err: { message: (error as Error).message } }, 'could not publish an access policy change'));
  });
  return {
    ready: (timeoutMs) => Promise.race([subscribed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref())]),
    stop: async () => {
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
