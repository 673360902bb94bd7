import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CachedPolicyRuleStore, RULES_KEY } from '../../adapters/outbound/access/CachedPolicyRuleStore.js';
import { CasbinAccessPolicy } from '../../adapters/outbound/access/CasbinAccessPolicy.js';
import { parsePolicyCsv, type Replacement, type StoredRule } from '../../adapters/outbound/access/PolicyRuleStore.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import { MikroOrmPolicyRuleStore } from '../../adapters/outbound/mikroorm/MikroOrmPolicyRuleStore.js';
import type { Cache } from '../../application/ports/Cache.js';
import type { Config } from '../config/schema.js';
import { readyOnce, ownConnection, type InstanceSync } from './instanceSync.js';
import { StartupError } from './StartupError.js';

export type { Replacement, StoredRule } from '../../adapters/outbound/access/PolicyRuleStore.js';

function readText(key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new StartupError(
      `${key}: cannot read ${JSON.stringify(path)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/** The rules of the `access.policy` file. */
function readSeed(config: Config): StoredRule[] {
  try {
    return parsePolicyCsv(readText('access.policy', config.access.policy));
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`access.policy: ${(error as Error).message}`);
  }
}

/** The rules' store: the database's, loaded through the cache (every write forgets them everywhere). */
const storeOf = (database: Database, cache: Cache, config: Config): CachedPolicyRuleStore =>
  new CachedPolicyRuleStore(new MikroOrmPolicyRuleStore(database), cache, config.cache.ttlMs, database.fromPrimary);

/**
 * The casbin policy: model from `access.model`, rules from the database through `cache`, seeded
 * from `access.policy` once.
 */
export async function loadAccessPolicy(config: Config, database: Database, cache: Cache): Promise<CasbinAccessPolicy> {
  const model = readText('access.model', config.access.model);
  const seed = readSeed(config);
  try {
    return await CasbinAccessPolicy.create(model, storeOf(database, cache, config), seed);
  } catch (error) {
    throw new StartupError(
      `access.model: ${JSON.stringify(config.access.model)} is not a valid casbin model (${(error as Error).message.split('\n')[0]})`,
    );
  }
}

/**
 * The recovery path (`policies:reset`): makes the database's rules exactly those of the
 * `access.policy` file, in one transaction, and answers what it replaced. Running instances learn
 * of it through `announceAccessPolicyChange`, or load it when they restart.
 */
export async function resetAccessPolicy(config: Config, database: Database): Promise<Replacement> {
  return new MikroOrmPolicyRuleStore(database).replaceAll(readSeed(config));
}

const CHANNEL = 'portico:access-policy';

/**
 * Tells every running instance subscribed through `syncAccessPolicy` on `url` that the stored
 * rules changed, so each reloads them; answers how many instances heard it. Fails fast (about
 * two seconds) when Redis cannot be reached.
 */
export async function announceAccessPolicyChange(url: string): Promise<number> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let failure: Error | undefined;
  redis.on('error', (error: Error) => (failure ??= error));
  try {
    // A refused connection rejects with "Connection is closed."; the error event says why.
    await redis.connect().catch((error: unknown) => Promise.reject(failure ?? error));
    return await redis.publish(CHANNEL, `cli:${randomUUID()}`);
  } finally {
    redis.disconnect();
  }
}

/**
 * Keeps the policy of every instance in step through Redis pub/sub: each local change is
 * published; a message from another instance makes this one forget the cached rules and reload
 * them from the database (the change's message may come before the cache's own: ADR 0042).
 * `ready(ms)` resolves true once subscribed (false if that takes longer); `stop` stops listening.
 */
export function syncAccessPolicy(policy: CasbinAccessPolicy, redis: Redis, logger: Logger, cache: Cache): InstanceSync {
  const instance = randomUUID();
  const subscriber = ownConnection(redis);
  const reload = (why: string) =>
    cache
      .delete(RULES_KEY)
      .then(() => policy.reload())
      .catch((error: unknown) => logger.error({ err: error, why }, 'access policy reload failed'));
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
  const publisher = ownConnection(redis);
  policy.subscribe(() => {
    publisher
      .publish(CHANNEL, instance)
      .catch((error: unknown) =>
        logger.warn({ err: { message: (error as Error).message } }, 'could not publish an access policy change'),
      );
  });
  return {
    ready: readyOnce(subscribed),
    stop: async () => {
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
