import { randomUUID } from 'node:crypto';
import { Container } from 'inversify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { createHttpApp, type RouteModule } from '../adapters/inbound/http/app.js';
import { healthRoutes } from '../adapters/inbound/http/routes/health.js';
import { CacheHealthCheck } from '../adapters/outbound/health/CacheHealthCheck.js';
import { DatabaseHealthCheck } from '../adapters/outbound/health/DatabaseHealthCheck.js';
import { DiskHealthCheck } from '../adapters/outbound/health/DiskHealthCheck.js';
import { EventLoopHealthCheck } from '../adapters/outbound/health/EventLoopHealthCheck.js';
import { HttpHealthCheck } from '../adapters/outbound/health/HttpHealthCheck.js';
import type { Database } from '../adapters/outbound/mikroorm/database.js';
import { SystemClock } from '../adapters/outbound/system/SystemClock.js';
import { CheckHealth, type Lifecycle } from '../application/health/CheckHealth.js';
import { HealthCheckRegistry } from '../application/health/HealthCheckRegistry.js';
import type { Clock } from '../application/ports/Clock.js';
import type { Config } from './config/schema.js';
import { TOKENS } from './tokens.js';

/** What exists before the container: configuration and the connections opened at start. */
export interface Infrastructure {
  config: Config;
  logger: Logger;
  database: Database;
  redis: Redis | null;
  lifecycle: Lifecycle;
  startedAt: Date;
}

function buildRegistry(config: Config, database: Database, redis: Redis | null): HealthCheckRegistry {
  const registry = new HealthCheckRegistry();
  // Liveness never depends on the database or other dependencies: a restart would not fix them.
  registry.register(new DatabaseHealthCheck(database), 'readiness');
  if (redis) registry.register(new CacheHealthCheck(redis), 'readiness');
  for (const http of config.health.http) registry.register(new HttpHealthCheck(http.name, http.url, http.timeoutMs), 'readiness');
  registry.register(new DiskHealthCheck(config.health.disk.path, config.health.disk.minFreeBytes), 'readiness');
  registry.register(new EventLoopHealthCheck(), 'both');
  return registry;
}

function buildRateLimiter(config: Config, redis: Redis | null): RateLimiterAbstract | null {
  if (!config.rateLimit.enabled) return null;
  const { points, windowSeconds } = config.rateLimit.rate;
  if (config.rateLimit.store === 'redis' && redis) {
    return new RateLimiterRedis({ storeClient: redis, points, duration: windowSeconds, keyPrefix: 'portico:rl', rejectIfRedisNotReady: true });
  }
  return new RateLimiterMemory({ points, duration: windowSeconds, keyPrefix: 'portico:rl' });
}

/** The composition root: every port bound to its adapter, every use case to its ports. */
export function buildContainer(infra: Infrastructure): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(infra.config);
  container.bind(TOKENS.Logger).toConstantValue(infra.logger);
  container.bind(TOKENS.Database).toConstantValue(infra.database);
  container.bind(TOKENS.Redis).toConstantValue(infra.redis);
  container.bind(TOKENS.Lifecycle).toConstantValue(infra.lifecycle);
  container.bind(TOKENS.Clock).toResolvedValue((): Clock => new SystemClock());

  container
    .bind(TOKENS.HealthCheckRegistry)
    .toResolvedValue((config: Config, database: Database, redis: Redis | null) => buildRegistry(config, database, redis), [
      TOKENS.Config,
      TOKENS.Database,
      TOKENS.Redis,
    ]);
  container
    .bind(TOKENS.CheckHealth)
    .toResolvedValue(
      (registry: HealthCheckRegistry, clock: Clock, lifecycle: Lifecycle, config: Config) =>
        new CheckHealth(registry, clock, lifecycle, { checkTimeoutMs: config.health.checkTimeoutMs, startedAt: infra.startedAt }),
      [TOKENS.HealthCheckRegistry, TOKENS.Clock, TOKENS.Lifecycle, TOKENS.Config],
    );
  container
    .bind(TOKENS.RateLimiter)
    .toResolvedValue((config: Config, redis: Redis | null) => buildRateLimiter(config, redis), [TOKENS.Config, TOKENS.Redis]);
  container
    .bind(TOKENS.RouteModules)
    .toResolvedValue((checkHealth: CheckHealth): RouteModule[] => [healthRoutes(checkHealth)], [TOKENS.CheckHealth]);
  container.bind(TOKENS.HttpApp).toResolvedValue(
    (config: Config, logger: Logger, limiter: RateLimiterAbstract | null, routes: RouteModule[]) =>
      createHttpApp({
        logger,
        trustProxy: config.server.trustProxy,
        requestTimeoutMs: config.server.requestTimeoutMs,
        bodyLimitBytes: config.server.bodyLimitBytes,
        cors: config.cors,
        rateLimiter: limiter,
        newRequestId: randomUUID,
        routes,
      }),
    [TOKENS.Config, TOKENS.Logger, TOKENS.RateLimiter, TOKENS.RouteModules],
  );
  return container;
}
