import type { Tracer } from '@opentelemetry/api';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import type { CasbinAccessPolicy } from '../../adapters/outbound/access/CasbinAccessPolicy.js';
import { EventLoopDelayMonitor } from '../../adapters/outbound/health/EventLoopHealthCheck.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import type { Cache } from '../../application/ports/Cache.js';
import type { JobHandler } from '../../application/ports/Jobs.js';
import type { Config } from '../config/schema.js';
import { loadAccessPolicy, syncAccessPolicy } from '../infrastructure/accessPolicy.js';
import { openCache } from '../infrastructure/cache.js';
import { openDatabase } from '../infrastructure/database.js';
import type { InstanceSync } from '../infrastructure/instanceSync.js';
import { openJobs, startRunner, startScheduler, type JobsEngine } from '../infrastructure/jobs.js';
import { buildMailer } from '../infrastructure/mailer.js';
import { createRedis } from '../infrastructure/redis.js';
import { startTracing, type Tracing } from '../infrastructure/tracing.js';
import { buildContainer, type Infrastructure } from './container.js';
import { listenApi, listenMetrics, type Serving } from './listeners.js';
import type { ProcessOptions } from './processOptions.js';
import { step } from './steps.js';

/*
 * Every step a process can start, each declared once with its stop; `startProcess` (startup.ts)
 * runs them in order. Each is given only what it uses.
 */

/** What a start-up is given: the configuration it runs with, its logger and the process's options. */
export interface Start {
  readonly config: Config;
  readonly logger: Logger;
  readonly options: ProcessOptions;
}

type WithDatabase = Start & { readonly database: Database };

/** The account mailer; its templates are read and checked here, before anything opens. */
export const MAILER = step(
  'mailer',
  ({ config, logger, options }: Start) =>
    buildMailer(config, logger, options.smtpTimeoutMs === undefined ? {} : { smtpTimeoutMs: options.smtpTimeoutMs }),
  (mail) => mail.close(),
);

/** The database, closed last of all. */
export const DATABASE = step(
  'database',
  ({ config, logger }: Start) =>
    openDatabase(config, { warn: (message) => logger.warn({ database: message }, 'database driver warning') }),
  (database) => database.close(),
);

/** The pending migrations, applied: their names, oldest first. */
export const MIGRATIONS = step('migrations', async ({ database, logger }: { database: Database; logger: Logger }) => {
  const applied = await database.migrate();
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  return applied;
});

/**
 * The process's one cache: shared through Redis (`redis.url`) when the process serves, else memory
 * only (a command's writes reach no other instance's memory: the keys' TTL bounds them). Closed
 * after everything that uses it.
 */
export const CACHE = step(
  'cache',
  ({ config, logger, options }: Start) => openCache(config, logger, options.listen),
  (cache) => cache.close(),
);

/** The access rules, loaded from the database through the cache (seeded from `access.policy` the first time). */
export const ACCESS_POLICY = step('access policy', ({ config, database, cache }: WithDatabase & { cache: Cache }) =>
  loadAccessPolicy(config, database, cache),
);

/** Redis when `redis.url` is set and the process serves (a command has no use for it); else `null`. */
export const REDIS = step(
  'redis',
  ({ config, logger, options }: Start) =>
    options.listen && config.redis.url ? createRedis(config.redis.url, logger) : null,
  (redis) => redis?.quit().catch(() => redis.disconnect()),
);

const stopSync = (sync: InstanceSync | null): Promise<void> | undefined => sync?.stop();

/** With Redis: the access policy kept in step with the other instances'. */
export const ACCESS_POLICY_SYNC = step(
  'access policy sync',
  ({
    policy,
    redis,
    logger,
    cache,
  }: {
    policy: CasbinAccessPolicy;
    redis: Redis | null;
    logger: Logger;
    cache: Cache;
  }) => redis && syncAccessPolicy(policy, redis, logger, cache),
  stopSync,
);

/** The one event-loop delay monitor: the `event_loop` check and load shedding read it. */
export const EVENT_LOOP_MONITOR = step(
  'event loop monitor',
  () => new EventLoopDelayMonitor(),
  (monitor) => monitor.close(),
);

/**
 * Tracing when `tracing.otlp_endpoint` is set and the process serves; its spans cover the
 * database's queries. Stopped after every request has ended and the background work has settled:
 * the last spans go out.
 */
export const TRACING = step(
  'tracing',
  async ({ config, options, database }: WithDatabase): Promise<Tracing | null> => {
    if (!options.listen) return null;
    const started = await startTracing(config, options.spanProcessor ? { spanProcessor: options.spanProcessor } : {});
    if (started) database.traceQueries(started.tracer);
    return started;
  },
  (tracing, { logger }) =>
    tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'tracing: spans not flushed')),
);

/** The jobs engine of the database; a command's runs none of its background parts (pg-boss's scheduler and supervisor). */
export const JOBS = step(
  'jobs',
  ({ config, database, logger, options }: WithDatabase) =>
    openJobs(config, database, logger, { background: options.listen }),
  (engine) => engine.stop(),
);

/** The feature modules composed over what the steps before opened. */
export const CONTAINER = step('container', (infrastructure: Infrastructure & { readonly options: ProcessOptions }) =>
  buildContainer(infrastructure, infrastructure.options.modules),
);

interface JobsWork {
  readonly config: Config;
  readonly logger: Logger;
  readonly jobs: JobsEngine;
  readonly handlers: ReadonlyMap<string, JobHandler>;
  readonly metrics: ServiceMetrics | null;
  readonly tracer: Tracer | undefined;
}

/**
 * Runs the jobs, unless the process's jobs mode is `web`. Stopped after the last request, before
 * the mail transport and the database close: running jobs get up to `server.shutdown_timeout`, the
 * rest stay stored.
 */
export const JOB_RUNNER = step(
  'job runner',
  ({ config, logger, jobs, handlers, metrics, tracer }: JobsWork) =>
    config.jobs.mode === 'web'
      ? undefined
      : startRunner(jobs, handlers, logger, { metrics, tracer, onPrimary: config.database.replicaUrls.length > 0 }),
  (runner, { config }) => runner?.stop(config.server.shutdownTimeoutMs),
);

/** Fires `jobs.schedules` — every instance does, whatever its jobs mode (once per period across them all). */
export const JOB_SCHEDULES = step(
  'job schedules',
  ({ config, jobs, handlers }: JobsWork) => startScheduler(jobs, config.jobs.schedules, handlers),
  (scheduler) => scheduler.stop(),
);

/** The metrics listener (health probes too), when `metrics` are kept; scraped until the last request is answered. */
export const METRICS_LISTENER = step(
  'metrics listener',
  ({ metrics, serving, config }: { metrics: ServiceMetrics | null; serving: Serving; config: Config }) =>
    metrics && listenMetrics(metrics, serving, config),
  (listener) => listener?.close(),
);

/** The API listener; its stop lets in-flight requests finish (bounded by `server.shutdown_timeout`), then closes every socket. */
export const API_LISTENER = step(
  'api listener',
  ({ serving, config }: { serving: Serving; config: Config }) => listenApi(serving, config),
  (listener, { config }) => listener.drain.close(config.server.shutdownTimeoutMs),
);
