import type { Transaction } from '../../domain/shared/Transaction.js';

/**
 * Background jobs (docs/jobs.md, ADR 0029): work that follows a request — a mail, a clean-up —
 * stored durably with the write that caused it and run after the answer by any instance, at least
 * once and by one runner at a time, retried with doubling delays until it succeeds or is given up.
 */

/** A value a job's payload holds: plain JSON. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A job's payload: a JSON object (it may hold addresses and tokens: never shown by the admin API). */
export type JobPayload = { readonly [key: string]: JsonValue };

/** A job to run later. */
export interface NewJob {
  /** What runs it: the handler registered under this name (`mail.send`). */
  readonly name: string;
  readonly payload: JobPayload;
  /** Not before this time (default: at once). */
  readonly runAt?: Date;
  /** While a job of this name and key is not finished (completed or failed), another enqueue of it is a no-op. */
  readonly key?: string;
}

/** An open transaction (`JobQueue.enqueue(job, tx)` joins it): defined with the domain's ports that join it too. */
export type { Transaction };

/** Runs work in one transaction of the service's database. */
export interface Transactions {
  /** Commits when `work` resolves, rolls back (every write given `tx`, a job included) when it rejects. */
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

/** Where use cases put jobs. */
export interface JobQueue {
  /**
   * Stores `job` durably — inside `within` when given, so it exists only if that transaction
   * commits. Answers its id, or `undefined` when `key` names a job not finished yet (nothing stored).
   */
  enqueue(job: NewJob, within?: Transaction): Promise<string | undefined>;
}

/** What a handler is told about the job it runs. */
export interface RunningJob {
  readonly id: string;
  readonly name: string;
  /** 1 for the first run, 2 for the first retry… */
  readonly attempt: number;
}

/** Runs one job; a rejection is a failure (the job is retried, or failed after the limit). */
export type JobHandler = (payload: JobPayload, job: RunningJob) => Promise<void>;

/** What happened to a run, for metrics and logs. */
export type JobOutcome = 'completed' | 'retried' | 'failed';

/** Told of every run's end. Must not throw. */
export type JobObserver = (event: {
  readonly job: RunningJob;
  readonly outcome: JobOutcome;
  readonly durationMs: number;
  readonly error?: unknown;
}) => void;

/** Takes stored jobs and runs them with their handlers. */
export interface JobRunner {
  /** Starts taking jobs whose names `handlers` has, up to the configured concurrency at a time. */
  start(handlers: ReadonlyMap<string, JobHandler>, observe?: JobObserver): Promise<void>;
  /**
   * Stops taking jobs, waits up to `graceMs` for the running ones to finish, and leaves every other
   * job stored for the next runner (one still running after the grace is taken up again after the
   * timeout, like one whose runner died).
   */
  stop(graceMs: number): Promise<void>;
}

/**
 * Fires `jobs.schedules` (docs/jobs.md): each job name's cron expression (five fields, UTC, minute
 * resolution) enqueues that job, with an empty payload, once per period across every instance that
 * runs a scheduler. A period no instance was running for, from its start to a minute after, is
 * skipped: the schedule fires again at its next period.
 */
export interface JobScheduler {
  /** Makes `schedules` (job name → cron) the schedules, replacing any earlier ones, and starts firing them. */
  start(schedules: ReadonlyMap<string, string>): Promise<void>;
  /** Stops firing (the schedules stay for the other instances). */
  stop(): Promise<void>;
}

/** A job's states, as the admin API names them. */
export const JOB_STATES = ['waiting', 'active', 'retry', 'failed', 'completed'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A stored job as an admin sees it: never its payload. */
export interface JobView {
  readonly id: string;
  readonly name: string;
  readonly state: JobState;
  /** Runs started (a job that failed once and waits for its retry shows 1). */
  readonly attempts: number;
  /** The last run's error message (no stack); null when none failed. */
  readonly lastError: string | null;
  readonly createdAt: Date;
  /** When it runs next (a retried job: after its delay); for a finished job, when it last ran. */
  readonly runAt: Date;
  readonly finishedAt: Date | null;
}

/** Which jobs to list: a page of them, filtered by state and name, by creation time (newest first by default). */
export interface JobQuery {
  readonly state?: JobState;
  readonly name?: string;
  readonly page: number;
  readonly perPage: number;
  /** By `created_at` (ties by id): `desc` (the default) or `asc`. */
  readonly order?: 'asc' | 'desc';
}

/** A page of jobs, in the query's order. */
export interface JobPage {
  readonly items: readonly JobView[];
  readonly total: number;
}

/** What an admin (and the metrics and health check) may do with stored jobs. */
export interface JobAdmin {
  list(query: JobQuery): Promise<JobPage>;
  /** A failed job runs again (its attempts start over): `retried`; another state: `conflict`. */
  retry(id: string): Promise<'retried' | 'conflict' | 'not-found'>;
  /** A waiting, retry or failed job is removed: `removed`; an active or completed one: `conflict`. */
  remove(id: string): Promise<'removed' | 'conflict' | 'not-found'>;
  /** Waiting jobs by name, the oldest waiting job's age, and jobs failed within the last hour. */
  stats(now: Date): Promise<JobStats>;
}

export interface JobStats {
  readonly waiting: Readonly<Record<string, number>>;
  readonly oldestWaitingSeconds: number;
  readonly failedLastHour: number;
}
