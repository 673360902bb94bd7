import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { Database } from '../adapters/outbound/mikroorm/database.js';
import type { Config } from './config/schema.js';
import { buildContainer } from './container.js';
import { ProcessLifecycle } from './lifecycle.js';
import { loadAccessPolicy, syncAccessPolicy } from './accessPolicy.js';
import { createLogger } from './logger.js';
import { createRedis } from './redis.js';
import { TOKENS } from './tokens.js';

/** A started service: where it listens and how to stop it. */
export interface RunningService {
  readonly url: string;
  readonly server: Server;
  readonly container: Container;
  readonly database: Database;
  /** Graceful stop: readiness down, stop accepting, let in-flight requests finish (bounded), close everything. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Defaults to a logger built from `log.level` / `log.format`. */
  logger?: Logger;
}

/** Opens the database (and Redis), applies migrations when configured, and listens. */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const startedAt = new Date();
  const logger = options.logger ?? createLogger(config.log.level, config.log.format);
  const database = await Database.connect(config.database.url, {
    queryTimeoutMs: config.database.queryTimeoutMs,
    warn: (message) => logger.warn({ database: message }, 'database driver warning'),
  });
  try {
    if (config.database.migrateOnStart) {
      const applied = await database.migrate();
      if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    }
  } catch (error) {
    await database.close();
    throw error;
  }
  let accessPolicy;
  try {
    accessPolicy = await loadAccessPolicy(config, database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const redis = config.redis.url ? createRedis(config.redis.url, logger) : null;
  const policySync = redis ? syncAccessPolicy(accessPolicy, redis, logger) : undefined;
  // Start in step with the other instances when Redis is there; never hang start-up on it.
  if (policySync && !(await policySync.ready(2000))) logger.warn('not yet subscribed to access policy changes (Redis unreachable?)');
  const lifecycle = new ProcessLifecycle();
  const container = buildContainer({ config, logger, database, redis, lifecycle, startedAt, accessPolicy });
  const app = container.get(TOKENS.HttpApp);

  const handle = app.callback();
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  let inFlight = 0;
  server.on('request', (_req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.server.port, config.server.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${address.port}`;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      lifecycle.beginShutdown();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const deadline = Date.now() + config.server.shutdownTimeoutMs;
      while (inFlight > 0 && Date.now() < deadline) {
        server.closeIdleConnections();
        await new Promise((r) => setTimeout(r, 25));
      }
      server.closeAllConnections();
      await closed;
      await policySync?.stop();
      await database.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      logger.info('stopped');
      logger.flush();
    })();
    return stopping;
  };
  return { url, server, container, database, stop };
}
