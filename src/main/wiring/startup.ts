import 'reflect-metadata';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { ServiceMetrics } from '../../adapters/inbound/metrics/ServiceMetrics.js';
import type { Database } from '../../adapters/outbound/mikroorm/database.js';
import type { Config } from '../config/schema.js';
import type { InstanceSync } from '../infrastructure/instanceSync.js';
import { jobHandlers, type JobsEngine } from '../infrastructure/jobs.js';
import { createLogger } from '../infrastructure/logger.js';
import { ProcessLifecycle } from './lifecycle.js';
import { servingOf, type ApiListener } from './listeners.js';
import type { ProcessOptions } from './processOptions.js';
import * as STEP from './processSteps.js';
import { Steps } from './steps.js';

export type { JobsMode, ProcessOptions } from './processOptions.js';

/** What every process opened: the database. `stop` stops every step it started, last first. */
export interface OpenedProcess {
  /** The configuration the process runs with: `jobs.mode` is the `jobs` option's. */
  readonly config: Config;
  readonly logger: Logger;
  readonly database: Database;
  /** The migrations this start applied, oldest first. */
  readonly migrated: readonly string[];
  /** Stops every started step, last first; a stop that fails is told to `failed` and the others still run. */
  stop(failed?: (step: string, error: unknown) => void): Promise<void>;
}

/** A process with its modules composed: the container its use cases come from. */
export interface ComposedProcess extends OpenedProcess {
  readonly container: Container;
  /** Told when the process begins to stop: readiness goes down. */
  readonly lifecycle: ProcessLifecycle;
}

/** A serving process: where it listens. */
export interface ServingProcess extends ComposedProcess {
  readonly api: ApiListener;
  /** `http://host:port/metrics`; `undefined` when `metrics.enabled` is false. */
  readonly metricsUrl: string | undefined;
}

/**
 * Starts a process as one ordered list of steps, each declared with its stop (processSteps.ts): a
 * step that fails stops the ones before it, last first, and `stop` stops them all the same way.
 * The database-only commands end after the migrations, the other commands once the modules are
 * composed (`listen` false); the server and the worker go on to run jobs and listen.
 */
export function startProcess(config: Config, options: ProcessOptions & { listen: true }): Promise<ServingProcess>;
export function startProcess(config: Config, options: ProcessOptions & { databaseOnly: true }): Promise<OpenedProcess>;
export function startProcess(config: Config, options: ProcessOptions): Promise<ComposedProcess>;
export async function startProcess(
  config: Config,
  options: ProcessOptions,
): Promise<OpenedProcess | ComposedProcess | ServingProcess> {
  const steps = new Steps(options.onStep);
  try {
    return await startSteps(steps, startOf(config, options));
  } catch (error) {
    // A step that fails has stopped the others already; this stops them when the failure came between two.
    await steps.stopAll();
    throw error;
  }
}

/** The ordered list of steps (see `startProcess`), each started through `steps`. */
async function startSteps(steps: Steps, start: STEP.Start): Promise<OpenedProcess | ComposedProcess | ServingProcess> {
  const { config, logger, options } = start;
  const startedAt = new Date();
  const mail = options.databaseOnly ? null : await steps.start(STEP.MAILER, start);
  const database = await steps.start(STEP.DATABASE, start);
  const migrate = options.migrate ?? config.database.migrateOnStart;
  const migrated = migrate ? await steps.start(STEP.MIGRATIONS, { database, logger }) : [];
  const opened: OpenedProcess = { ...start, database, migrated, stop: (failed) => steps.stopAll(failed) };
  if (!mail) return opened;
  const cache = await steps.start(STEP.CACHE, start);
  const policy = await steps.start(STEP.ACCESS_POLICY, { ...start, database, cache });
  const redis = await steps.start(STEP.REDIS, start);
  const policySync = await steps.start(STEP.ACCESS_POLICY_SYNC, { policy, redis, logger, cache });
  const eventLoop = await steps.start(STEP.EVENT_LOOP_MONITOR, undefined);
  const tracing = await steps.start(STEP.TRACING, { ...start, database });
  const jobs = await steps.start(STEP.JOBS, { ...start, database });
  const metrics = options.listen && config.metrics.enabled ? metricsOf(database, jobs) : null;
  const lifecycle = new ProcessLifecycle();
  const opens = {
    redis,
    cache,
    accessPolicy: policy,
    mailer: mail.mailer,
    jobs,
    eventLoop,
    tracing,
    metrics,
    startedAt,
  };
  const container = await steps.start(STEP.CONTAINER, { ...opened, ...opens, lifecycle, options });
  const composed: ComposedProcess = { ...opened, container, lifecycle };
  if (!options.listen) return composed;
  const work = { ...start, jobs, handlers: jobHandlers(container), metrics, tracer: tracing?.tracer };
  await steps.start(STEP.JOB_RUNNER, work);
  await steps.start(STEP.JOB_SCHEDULES, work);
  await inStepWithTheOthers(policySync, logger);
  const serving = servingOf(container, config);
  const metricsListener = await steps.start(STEP.METRICS_LISTENER, { metrics, serving, config });
  const api = await steps.start(STEP.API_LISTENER, { serving, config });
  return { ...composed, api, metricsUrl: metricsListener?.url };
}

/** What the steps are given: the configuration with the process's jobs mode, the logger, the options. */
function startOf(config: Config, options: ProcessOptions): STEP.Start {
  const jobs = options.jobs ?? config.jobs.mode;
  return {
    config: jobs === config.jobs.mode ? config : { ...config, jobs: { ...config.jobs, mode: jobs } },
    logger: options.logger ?? createLogger(config.log.level, config.log.format),
    options,
  };
}

/** The service's Prometheus series, counting the database's failures and the stored jobs. */
function metricsOf(database: Database, jobs: JobsEngine): ServiceMetrics {
  const metrics = new ServiceMetrics();
  database.onFailure((kind) => metrics.databaseError(kind));
  metrics.watchJobs(() => jobs.admin.stats(new Date()));
  return metrics;
}

/** Starts in step with the other instances when Redis is there; never hangs start-up on it. */
async function inStepWithTheOthers(policy: InstanceSync | null, logger: Logger): Promise<void> {
  if ((await policy?.ready(2000)) === false)
    logger.warn('not yet subscribed to access policy changes (Redis unreachable?)');
}
