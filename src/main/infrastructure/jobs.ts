import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import { readingFromPrimary } from '../../adapters/outbound/mikroorm/readRouting.js';
import { tracedHandlers, untracedHandlers } from '../../adapters/outbound/jobs/jobTracing.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import { SqlJobs } from '../../adapters/outbound/mikroorm/SqlJobs.js';
import { SqlTransactions } from '../../adapters/outbound/mikroorm/SqlTransactions.js';
import { PgBossJobs } from '../../adapters/outbound/pgboss/PgBossJobs.js';
import type { JobRunnerOptions } from '../../application/jobs/runnerOptions.js';
import type { Container } from 'inversify';
import type {
  JobAdmin,
  JobHandler,
  JobQueue,
  JobRunner,
  JobScheduler,
  Transactions,
} from '../../application/ports/Jobs.js';
import type { Config } from '../config/schema.js';
import { buildWith } from '../modules/built.js';
import type { FeatureModule } from '../modules/FeatureModule.js';
import { MODULES } from '../modules/index.js';

/** The service's jobs on its database's engine: SQLite's jobs table, or pg-boss on PostgreSQL (ADR 0029). */
export interface JobsEngine {
  readonly queue: JobQueue;
  readonly admin: JobAdmin;
  readonly transactions: Transactions;
  /** A runner with the configured `jobs.*` settings. */
  runner(): JobRunner;
  /** The scheduler of `jobs.schedules` (on SQLite it also deletes finished jobs past their retention). */
  scheduler(): JobScheduler;
  /** Closes what the engine opened (pg-boss's pool); runners are stopped before. */
  stop(): Promise<void>;
}

/** `jobs.*` as a runner's options; the poll interval is the engine's (pg-boss polls no faster than 500 ms). */
export function runnerOptions(config: Config, pollIntervalMs: number): JobRunnerOptions {
  return {
    concurrency: config.jobs.concurrency,
    timeoutMs: config.jobs.timeoutMs,
    retry: { limit: config.jobs.retryLimit, firstDelayMs: 1000, maxDelayMs: config.jobs.retryMaxDelayMs },
    pollIntervalMs,
  };
}

/** What both engines offer: the queue and the admin's view in one object, its runners and its scheduler. */
interface Engine extends JobQueue, JobAdmin {
  runner(options: JobRunnerOptions): JobRunner;
  scheduler(): JobScheduler;
}

/** Opens the jobs of `database`: on PostgreSQL pg-boss is started (its schema installed or migrated). */
export async function openJobs(
  config: Config,
  database: Database,
  logger: Logger,
  options: { readonly background?: boolean } = {},
): Promise<JobsEngine> {
  const opened = (engine: Engine, pollIntervalMs: number, stop: () => Promise<void>): JobsEngine => ({
    queue: engine,
    admin: engine,
    transactions: new SqlTransactions(database),
    runner: () => engine.runner(runnerOptions(config, pollIntervalMs)),
    scheduler: () => engine.scheduler(),
    stop,
  });
  if (database.sql.dialect === 'sqlite') {
    const jobs = new SqlJobs(database, {
      onError: (what, error) => logger.error({ err: error }, `jobs: ${what} failed`),
      failedRetentionMs: config.jobs.retentionMs,
    });
    return opened(jobs, 250, async () => undefined);
  }
  const boss = new PgBossJobs({
    connectionString: config.database.migrationUrl || config.database.url,
    defaults: runnerOptions(config, 500),
    failedRetentionMs: config.jobs.retentionMs,
    ...(options.background === undefined ? {} : { background: options.background }),
    onError: (error) => logger.error({ err: error }, 'jobs: pg-boss failed'),
  });
  await boss.start();
  return opened(boss, 500, () => boss.stop());
}

/** Every module's job handlers by name; a name handled twice is a mistake found at start. */
export function jobHandlers(
  container: Container,
  modules: readonly FeatureModule[] = MODULES,
): ReadonlyMap<string, JobHandler> {
  const handlers = new Map<string, JobHandler>();
  for (const module of modules) {
    if (!module.jobs) continue;
    for (const [name, handler] of Object.entries(buildWith(module.jobs, (token) => container.get(token)))) {
      if (handlers.has(name)) throw new Error(`the job ${name} is handled twice (module ${module.name})`);
      handlers.set(name, handler);
    }
  }
  return handlers;
}

/**
 * Starts firing `jobs.schedules`, each of which must name a job a module handles (else the job
 * would wait forever: refused at start).
 */
export async function startScheduler(
  engine: JobsEngine,
  schedules: ReadonlyMap<string, string>,
  handlers: ReadonlyMap<string, JobHandler>,
): Promise<JobScheduler> {
  const unhandled = [...schedules.keys()].filter((name) => !handlers.has(name));
  if (unhandled.length > 0)
    throw new Error(`jobs.schedules: no module handles ${unhandled.join(', ')} (a scheduled job needs a handler)`);
  const scheduler = engine.scheduler();
  await scheduler.start(schedules);
  return scheduler;
}

/**
 * Starts a runner taking every handled job: each run counted and timed in `metrics`, in a span of
 * its own linked to the request that enqueued it while tracing is on; a run that fails is logged
 * (its retry or failure is kept with the job). With read replicas (`onPrimary`) a run reads from
 * the primary: a job reads what the request that enqueued it has just written, whichever replica
 * has not replayed it yet.
 */
export async function startRunner(
  engine: JobsEngine,
  handlers: ReadonlyMap<string, JobHandler>,
  logger: Logger,
  observed: {
    readonly metrics?: ServiceMetrics | null;
    readonly tracer?: Tracer | undefined;
    readonly onPrimary?: boolean;
  } = {},
): Promise<JobRunner> {
  const runner = engine.runner();
  const { metrics, tracer } = observed;
  const handled = tracer ? tracedHandlers(handlers, tracer) : untracedHandlers(handlers);
  const run = observed.onPrimary
    ? new Map(
        [...handled].map(([name, handler]): [string, JobHandler] => [
          name,
          (payload, job) => readingFromPrimary(() => handler(payload, job)),
        ]),
      )
    : handled;
  await runner.start(run, ({ job, outcome, error, durationMs }) => {
    metrics?.jobFinished(job.name, outcome, durationMs / 1000);
    if (outcome === 'completed') return;
    logger[outcome === 'failed' ? 'error' : 'warn'](
      { err: error, job: { id: job.id, name: job.name, attempt: job.attempt } },
      outcome === 'failed' ? 'job failed: given up' : 'job failed: retried later',
    );
  });
  return runner;
}
