import { randomUUID } from 'node:crypto';
import { Container } from 'inversify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { graphqlRoutes } from '../../adapters/inbound/graphql/routes.js';
import { createHttpApp, type HttpAppOptions, type RouteModule } from '../../adapters/inbound/http/app.js';
import type { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import { DOCS_PATHS, docsRoutes } from '../../adapters/inbound/http/routes/docs.js';
import { HEALTH_PATHS } from '../../adapters/inbound/http/routes/health.js';
import { apiDocument, restModules } from './apiDocument.js';
import { LoopPressure, securityHeaderList, TurnBudget } from '../../adapters/inbound/http/runtime/index.js';
import type { EventLoopDelayMonitor } from '../../adapters/outbound/health/EventLoopHealthCheck.js';
import { replayedWithinMs, type Database } from '../../adapters/outbound/mikroorm/database.js';
import type { ReadYourWritesOptions } from '../../adapters/inbound/http/middleware/readYourWrites.js';
import { RedisWritePositions } from '../../adapters/outbound/cache/RedisWritePositions.js';
import { InMemoryWritePositions } from '../../adapters/outbound/memory/InMemoryWritePositions.js';
import { ReplicaReadYourWrites } from '../../adapters/outbound/mikroorm/ReplicaReadYourWrites.js';
import { SystemClock } from '../../adapters/outbound/system/SystemClock.js';
import { UuidGenerator } from '../../adapters/outbound/system/UuidGenerator.js';
import type { Lifecycle } from '../../application/health/CheckHealth.js';
import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';
import type { Cache } from '../../application/ports/Cache.js';
import type { Clock } from '../../application/ports/Clock.js';
import type { IdGenerator } from '../../application/ports/IdGenerator.js';
import type { Mailer } from '../../application/ports/Mailer.js';
import type { Config } from '../config/schema.js';
import type { JobsEngine } from '../infrastructure/jobs.js';
import type { Tracing } from '../infrastructure/tracing.js';
import type { FeatureModule } from '../modules/FeatureModule.js';
import { bindBuilt, built, buildWith } from '../modules/built.js';
import { MODULES } from '../modules/index.js';
import { AuthTokens } from '../modules/auth.js';
import { fileResourcesOf, FileTokens } from '../modules/files.js';
import { TOKENS } from './tokens.js';
import type { JobQueue } from '../../application/ports/Jobs.js';
import { CountedJobs } from '../../adapters/outbound/jobs/CountedJobs.js';
import { TraceStampingJobQueue } from '../../adapters/outbound/jobs/jobTracing.js';

/**
 * What exists before the container: configuration and what the start-up steps before it opened or
 * loaded (wiring/processSteps.ts), each closed by its own step when the process stops.
 */
export interface Infrastructure {
  config: Config;
  logger: Logger;
  database: Database;
  /** `null` unless `redis.url` is set and the process serves (a command has none). */
  redis: Redis | null;
  /** The process's one cache (`openCache`). */
  cache: Cache;
  lifecycle: Lifecycle;
  startedAt: Date;
  accessPolicy: AccessPolicy;
  /** Account e-mails: SMTP, or the development log mailer (`buildMailer`). */
  mailer: Mailer;
  /** Background jobs on the database's engine (`openJobs`). */
  jobs: Pick<JobsEngine, 'queue' | 'admin' | 'transactions'>;
  /** The one event-loop delay monitor, shared by the `event_loop` check and load shedding. */
  eventLoop: EventLoopDelayMonitor;
  /** Present while tracing is on (`tracing.otlp_endpoint` set, in a serving process). */
  tracing?: Tracing | null;
  /** The service's Prometheus series; absent or `null`: no metrics (`metrics.enabled` false, or a command). */
  metrics?: ServiceMetrics | null;
}

function buildRateLimiter(config: Config, redis: Redis | null): RateLimiterAbstract | null {
  if (!config.rateLimit.enabled) return null;
  const { points, windowSeconds } = config.rateLimit.rate;
  if (config.rateLimit.store === 'redis' && redis) {
    return new RateLimiterRedis({
      storeClient: redis,
      points,
      duration: windowSeconds,
      keyPrefix: 'portico:rl',
      rejectIfRedisNotReady: true,
    });
  }
  return new RateLimiterMemory({ points, duration: windowSeconds, keyPrefix: 'portico:rl' });
}

/**
 * Read-your-writes for the HTTP app when the database has read replicas (`database.replica_urls`),
 * else `undefined` (no middleware, no cost): the clients' write positions in Redis when `redis.url`
 * is set (every instance shares them), else in this process.
 */
function readYourWritesOf(container: Container, infra: Infrastructure): ReadYourWritesOptions | undefined {
  const { database, redis, config, logger } = infra;
  if (database.reads.replicas === 0 || !container.isBound(AuthTokens.TokenIssuer)) return undefined;
  const graphql = config.api.mode === 'graphql' || config.api.mode === 'both';
  return {
    tokens: container.get(AuthTokens.TokenIssuer),
    ...(graphql ? { graphqlPath: config.graphql.generalRoute } : {}),
    readYourWrites: new ReplicaReadYourWrites({
      positions: redis ? new RedisWritePositions(redis) : new InMemoryWritePositions(),
      primaryPosition: () => database.primaryPosition(),
      ttlMs: replayedWithinMs(config.database.replicaMaxLagMs),
      warn: (message) => logger.warn(message),
    }),
  };
}

/**
 * The route modules `api.mode` asks for: every core feature's REST routes (health, auth, profile,
 * admin); the resources' REST routes when it is `rest`/`both`; one GraphQL API over every
 * resource's fragment when it is `graphql`/`both`. A worker (`jobs.mode: worker`) serves only health.
 */
function routeModules(
  container: Container,
  modules: readonly FeatureModule[],
  config: Config,
  metrics: ServiceMetrics | null,
  tracing?: Tracing | null,
): RouteModule[] {
  // A worker (`jobs.mode: worker`) runs jobs and serves only the health paths.
  if (config.jobs.mode === 'worker')
    return modules.flatMap((module) =>
      module.name === 'health' && module.rest ? [buildWith(module.rest.routes, (token) => container.get(token))] : [],
    );
  const { mode } = config.api;
  const routes = restModules(modules, config).flatMap((module) =>
    module.rest ? [buildWith(module.rest.routes, (token) => container.get(token))] : [],
  );
  if (config.docs.enabled) routes.push(docsRoutes(apiDocument(modules, config)));
  if (mode === 'graphql' || mode === 'both') {
    const fragments = modules.flatMap((module) =>
      module.graphql ? [buildWith(module.graphql, (token) => container.get(token))] : [],
    );
    const access = { authenticate: container.get(TOKENS.Authenticate), policy: container.get(TOKENS.AccessPolicy) };
    const onOperation = metrics ? metrics.graphqlOperation.bind(metrics) : undefined;
    routes.push(
      graphqlRoutes(fragments, access, {
        ...config.graphql,
        ...(onOperation ? { onOperation } : {}),
        ...(tracing ? { tracer: tracing.tracer } : {}),
      }),
    );
  }
  return routes;
}

/**
 * The composition root: the shared infrastructure bound here, every feature module's bindings
 * loaded (`modules`, MODULES by default), and the HTTP app built from their routes.
 */
export function buildContainer(infra: Infrastructure, modules: readonly FeatureModule[] = MODULES): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(TOKENS.Config).toConstantValue(infra.config);
  container.bind(TOKENS.Logger).toConstantValue(infra.logger);
  container.bind(TOKENS.Database).toConstantValue(infra.database);
  container.bind(TOKENS.Redis).toConstantValue(infra.redis);
  container.bind(TOKENS.Cache).toConstantValue(infra.cache);
  container.bind(TOKENS.FreshReads).toConstantValue(infra.database.fromPrimary);
  container.bind(TOKENS.Lifecycle).toConstantValue(infra.lifecycle);
  container.bind(TOKENS.StartedAt).toConstantValue(infra.startedAt);
  container.bind(TOKENS.EventLoop).toConstantValue(infra.eventLoop);
  container.bind(TOKENS.AccessPolicy).toConstantValue(infra.accessPolicy);
  container.bind(TOKENS.Mailer).toConstantValue(infra.mailer);
  // Jobs enqueued under a traced request carry its span context; stored jobs are counted once committed.
  let queue: JobQueue = infra.tracing ? new TraceStampingJobQueue(infra.jobs.queue) : infra.jobs.queue;
  const metrics = infra.metrics;
  if (metrics) queue = new CountedJobs(queue, (name) => metrics.jobEnqueued(name));
  container.bind(TOKENS.JobQueue).toConstantValue(queue);
  container.bind(TOKENS.Transactions).toConstantValue(infra.jobs.transactions);
  container.bind(TOKENS.JobAdmin).toConstantValue(infra.jobs.admin);
  container.bind(TOKENS.Metrics).toConstantValue(infra.metrics ?? null);
  container.bind(TOKENS.Clock).toResolvedValue((): Clock => new SystemClock());
  container.bind(TOKENS.IdGenerator).toResolvedValue((): IdGenerator => new UuidGenerator());
  bindBuilt(
    container.bind(TOKENS.RateLimiter),
    built({ config: TOKENS.Config, redis: TOKENS.Redis }, ({ config, redis }) => buildRateLimiter(config, redis)),
  );
  container.load(...modules.map((module) => module.bindings));
  bindBuilt(container.bind(FileTokens.Resources), fileResourcesOf(modules));
  bindBuilt(
    container.bind(TOKENS.RouteModules),
    built({ config: TOKENS.Config, metrics: TOKENS.Metrics }, ({ config, metrics }) =>
      routeModules(container, modules, config, metrics, infra.tracing),
    ),
  );
  const { tracing } = infra;
  const consistent = readYourWritesOf(container, infra);
  const pressure = new LoopPressure(infra.config.server.maxEventLoopDelayMs);
  infra.eventLoop.onWindow((window) => pressure.observe(window));
  bindBuilt(
    container.bind(TOKENS.HttpAppOptions),
    built(
      {
        config: TOKENS.Config,
        logger: TOKENS.Logger,
        limiter: TOKENS.RateLimiter,
        routes: TOKENS.RouteModules,
        metrics: TOKENS.Metrics,
      },
      ({ config, logger, limiter, routes, metrics }): HttpAppOptions => ({
        ...(metrics ? { metrics } : {}),
        logger,
        trustProxy: config.server.trustProxy,
        trustProxyHops: config.server.trustProxyHops,
        requestTimeoutMs: config.server.requestTimeoutMs,
        bodyLimitBytes: config.server.bodyLimitBytes,
        cors: config.cors,
        securityHeaders: securityHeaderList({ hsts: config.server.hsts }),
        rateLimiter: limiter,
        newRequestId: randomUUID,
        routes,
        unmeteredPaths: [...HEALTH_PATHS, ...(config.docs.enabled ? DOCS_PATHS : [])],
        ...(tracing ? { tracing: { tracer: tracing.tracer, propagator: tracing.propagator } } : {}),
        shedding: {
          maxInFlight: config.server.maxInFlight,
          loopOverloaded: () => pressure.overloaded,
          turns: new TurnBudget(),
        },
        ...(consistent ? { readYourWrites: consistent } : {}),
      }),
    ),
  );
  bindBuilt(
    container.bind(TOKENS.HttpApp),
    built({ options: TOKENS.HttpAppOptions }, ({ options }) => createHttpApp(options)),
  );
  return container;
}
