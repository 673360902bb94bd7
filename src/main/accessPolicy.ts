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
 * Returns a function that stops listening.
 */
export async function syncAccessPolicy(policy: CasbinAccessPolicy, redis: Redis, logger: Logger): Promise<() => Promise<void>> {
  const instance = randomUUID();
  const subscriber = redis.duplicate();
  subscriber.on('error', () => undefined); // the main client already reports connection problems
  subscriber.on('message', (_channel: string, sender: string) => {
    if (sender === instance) return;
    policy.reload().catch((error: unknown) => logger.error({ err: error }, 'access policy reload failed'));
  });
  try {
    await subscriber.subscribe(CHANNEL);
  } catch (error) {
    logger.warn({ err: { message: (error as Error).message } }, 'access policy changes will not reach other instances until Redis is back');
  }
  policy.subscribe(() => {
    redis.publish(CHANNEL, instance).catch((error: unknown) => logger.warn({ err: { message: (error as Error).message } }, 'could not publish an access policy change'));
  });
  return async () => {
    subscriber.disconnect();
  };
}
