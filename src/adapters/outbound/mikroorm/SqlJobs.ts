import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/core';
import type {
  JobAdmin,
  JobHandler,
  JobObserver,
  JobOutcome,
  JobPage,
  JobPayload,
  JobQuery,
  JobQueue,
  JobRunner,
  JobState,
  JobStats,
  NewJob,
  RunningJob,
  Transaction,
} from '../../../application/ports/Jobs.js';
import { retryDelayMs } from '../../../application/jobs/retryDelay.js';
import {
  DEFAULT_RETENTION,
  DEFAULT_RUNNER_OPTIONS,
  type JobRunnerOptions,
} from '../../../application/jobs/runnerOptions.js';
import type { Database } from './database.js';
import { guarded } from './errors.js';
import type { SqlExecutor, SqlParam, SqlStatements } from './sqlExecutor.js';
import { sqlOf } from './SqlTransactions.js';
import { CronScheduler, type CronSchedulerOptions } from '../schedules/CronScheduler.js';
import { failureMessage } from '../../../application/jobs/failureMessage.js';

/** The states a job is not finished in: a keyed enqueue is a no-op while one of its key is in one. */
const UNFINISHED = `('waiting', 'active', 'retry')`;

/** A new job, unless `key` names an unfinished one: one statement, so two enqueues of a key never both store it. */
const INSERT =
  'insert into jobs (id, name, payload, key, state, attempts, last_error, created_at, run_at, started_at, finished_at) ' +
  `select ?, ?, ?, ?, 'waiting', 0, null, ?, ?, null, null ` +
  `where ? is null or not exists (select 1 from jobs where name = ? and key = ? and state in ${UNFINISHED})`;

/** A schedule's firing: stored once under its id, however many checks fire it. */
const INSERT_FIRING =
  'insert into jobs (id, name, payload, key, state, attempts, last_error, created_at, run_at, started_at, finished_at) ' +
  `values (?, ?, '{}', null, 'waiting', 0, null, ?, ?, null, null) on conflict (id) do nothing`;

/**
 * Finished jobs past their retention: completed ones, and failed ones. A finished job ran at or
 * after its `run_at`, so `run_at < ?` holds for every one of them and lets SQLite find them through
 * `(state, run_at)` instead of reading every kept job of the state.
 */
const PURGE =
  `delete from jobs where (state = 'completed' and run_at < ? and finished_at < ?) ` +
  `or (state = 'failed' and run_at < ? and finished_at < ?)`;

/**
 * The id of the next due job of `count` names (its parameters: the names, now, the time before
 * which an active run has timed out). `+name` keeps SQLite off the `(name, key)` index, which it
 * picks for a single name and then reads every job of that name kept after completion, the event
 * loop blocked meanwhile: the due jobs are found through `(state, run_at)` instead, however many
 * finished jobs are kept (a test holds the query plan).
 */
export const nextDue = (count: number): string =>
  `select id from jobs where +name in (${Array.from({ length: count }, () => '?').join(', ')}) and (` +
  `(state in ('waiting', 'retry') and run_at <= ?) or (state = 'active' and started_at <= ?)) ` +
  'order by run_at, created_at, id limit 1';

/** A run is the job's row while it is still active with the start and attempt count it was taken with. */
const SAME_RUN = `where id = ? and state = 'active' and started_at = ? and attempts = ?`;

const COMPLETE = `update jobs set state = 'completed', finished_at = ? ${SAME_RUN}`;
const RETRY = `update jobs set state = 'retry', last_error = ?, run_at = ? ${SAME_RUN}`;
const FAIL = `update jobs set state = 'failed', last_error = ?, finished_at = ? ${SAME_RUN}`;

const VIEW_COLUMNS = 'id, name, state, attempts, last_error, created_at, run_at, finished_at';

/** A stored job as a statement answers it (SQLite: times as epoch milliseconds). */
interface JobRow {
  readonly id: string;
  readonly name: string;
  readonly state: JobState;
  readonly attempts: number;
  readonly last_error: string | null;
  readonly created_at: number;
  readonly run_at: number;
  readonly finished_at: number | null;
}

/** A job just taken for a run. */
interface TakenRow {
  readonly id: string;
  readonly name: string;
  readonly payload: string;
  readonly attempts: number;
  readonly started_at: number;
}

/** A run of a job: who it is, and what tells this run from a later one of the same job. */
interface Run {
  readonly job: RunningJob;
  readonly payload: JobPayload;
  readonly startedAt: Date;
}

const dateOf = (stored: number | bigint): Date => new Date(Number(stored));

export interface SqlJobsOptions {
  /** The time (tests may fix it); by default the system clock. */
  readonly now?: () => Date;
  /** Told of a runner's failed database call (taking or finishing a job); the runner goes on at its next poll. */
  readonly onError?: (what: string, error: unknown) => void;
  /** How long completed jobs are kept (default a day). */
  readonly completedRetentionMs?: number;
  /** How long failed jobs are kept (`jobs.retention`, default 14 days). */
  readonly failedRetentionMs?: number;
}

/**
 * Jobs in the `jobs` table of the service's SQLite database (docs/jobs.md): the queue, the
 * admin's view and runners, with the behaviour of every engine (the contract suite). SQLite serves
 * one instance, but several runners (and a second connection to the file) may share the table: a
 * job is taken by one `update … returning` statement, which SQLite runs under its write lock, and a
 * run's end is recorded only while the row is still that run's.
 */
export class SqlJobs implements JobQueue, JobAdmin {
  private readonly orm: MikroORM;
  private readonly sql: SqlExecutor;
  private readonly now: () => Date;
  private readonly onError: (what: string, error: unknown) => void;
  private readonly retention: { readonly completedMs: number; readonly failedMs: number };

  constructor(database: Database, options: SqlJobsOptions = {}) {
    if (database.sql.dialect !== 'sqlite')
      throw new Error('SqlJobs serves SQLite only; on PostgreSQL jobs are pg-boss');
    this.orm = database.orm;
    this.sql = database.sql;
    this.now = options.now ?? (() => new Date());
    this.onError = options.onError ?? (() => undefined);
    this.retention = {
      completedMs: options.completedRetentionMs ?? DEFAULT_RETENTION.completedMs,
      failedMs: options.failedRetentionMs ?? DEFAULT_RETENTION.failedMs,
    };
  }

  /**
   * The scheduler of this table (`jobs.schedules`), which also deletes finished jobs past their
   * retention on each check — every instance runs one, whatever its `jobs.mode`.
   */
  scheduler(options: Pick<CronSchedulerOptions, 'checkIntervalMs'> = {}): CronScheduler {
    return new CronScheduler({
      ...options,
      now: this.now,
      fire: ({ id, name }) =>
        guarded(this.orm, async () => {
          const now = this.now();
          await this.sql.run(INSERT_FIRING, [id, name, now, now]);
        }),
      everyCheck: async (now) => void (await this.purgeFinished(now)),
      onError: (error) => this.onError('a schedule check', error),
    });
  }

  /** Deletes completed and failed jobs past their retention; answers how many. */
  purgeFinished(now: Date): Promise<number> {
    const before = (ms: number) => new Date(now.getTime() - ms);
    return guarded(this.orm, () =>
      this.sql.run(PURGE, [
        before(this.retention.completedMs),
        before(this.retention.completedMs),
        before(this.retention.failedMs),
        before(this.retention.failedMs),
      ]),
    );
  }

  enqueue(job: NewJob, within?: Transaction): Promise<string | undefined> {
    const statements: SqlStatements = within ? sqlOf(within) : this.sql;
    const id = randomUUID();
    const now = this.now();
    const key = job.key ?? null;
    return guarded(this.orm, async () => {
      const params = [id, job.name, JSON.stringify(job.payload), key, now, job.runAt ?? now, key, job.name, key];
      return (await statements.run(INSERT, params)) === 1 ? id : undefined;
    });
  }

  /** A runner over this table (several runners share it, as instances share a database). */
  runner(options: Partial<JobRunnerOptions> = {}): JobRunner {
    return new SqlJobRunner(this, { ...DEFAULT_RUNNER_OPTIONS, ...options });
  }

  /**
   * Marks the next due job of these names active for a run — a waiting or retry job whose `run_at`
   * passed, or an active one whose run started `timeoutMs` ago (its runner died) — in one statement,
   * so two runners never take the same job; `undefined` when none is due.
   */
  async take(names: readonly string[], timeoutMs: number): Promise<Run | undefined> {
    if (names.length === 0) return undefined;
    const now = this.now();
    const row = await guarded(this.orm, () =>
      this.sql.one<TakenRow>(
        `update jobs set state = 'active', attempts = attempts + 1, started_at = ? where id = (${nextDue(names.length)})` +
          ' returning id, name, payload, attempts, started_at',
        [now, ...names, now, new Date(now.getTime() - timeoutMs)],
      ),
    );
    if (!row) return undefined;
    return {
      job: { id: row.id, name: row.name, attempt: Number(row.attempts) },
      payload: JSON.parse(row.payload) as JobPayload,
      startedAt: dateOf(row.started_at),
    };
  }

  /** Records a run's end, unless the job was taken up again meanwhile (its run timed out): then `undefined`. */
  async finish(run: Run, error: unknown, options: JobRunnerOptions): Promise<JobOutcome | undefined> {
    const now = this.now();
    const same: SqlParam[] = [run.job.id, run.startedAt, run.job.attempt];
    const update = (sql: string, params: SqlParam[]) =>
      guarded(this.orm, () => this.sql.run(sql, [...params, ...same]));
    if (error === undefined) return (await update(COMPLETE, [now])) === 1 ? 'completed' : undefined;
    const delay = retryDelayMs(options.retry, run.job.attempt);
    if (delay === undefined) return (await update(FAIL, [failureMessage(error), now])) === 1 ? 'failed' : undefined;
    const runAt = new Date(now.getTime() + delay);
    return (await update(RETRY, [failureMessage(error), runAt])) === 1 ? 'retried' : undefined;
  }

  /** Tells the runner's error listener of a failed database call. */
  report(what: string, error: unknown): void {
    this.onError(what, error);
  }

  list(query: JobQuery): Promise<JobPage> {
    const direction = query.order === 'asc' ? 'asc' : 'desc';
    const filters = [
      ['state', query.state],
      ['name', query.name],
    ].filter((filter): filter is [string, string] => filter[1] !== undefined);
    const conditions = filters.map(([column]) => `${column} = ?`);
    const params: SqlParam[] = filters.map(([, value]) => value);
    const where = conditions.length > 0 ? ` where ${conditions.join(' and ')}` : '';
    return guarded(this.orm, async () => {
      const counted = await this.sql.one<{ n: number }>(`select count(*) as n from jobs${where}`, params);
      const rows = await this.sql.all<JobRow>(
        `select ${VIEW_COLUMNS} from jobs${where} order by created_at ${direction}, id ${direction} limit ? offset ?`,
        [...params, query.perPage, (query.page - 1) * query.perPage],
      );
      return {
        total: Number(counted?.n ?? 0),
        items: rows.map((row) => ({
          id: row.id,
          name: row.name,
          state: row.state,
          attempts: Number(row.attempts),
          lastError: row.last_error,
          createdAt: dateOf(row.created_at),
          runAt: dateOf(row.run_at),
          finishedAt: row.finished_at === null ? null : dateOf(row.finished_at),
        })),
      };
    });
  }

  retry(id: string): Promise<'retried' | 'conflict' | 'not-found'> {
    return guarded(this.orm, async () => {
      const changed = await this.sql.run(
        // Not while another unfinished job holds its key: a key names one unfinished job at most.
        `update jobs set state = 'retry', attempts = 0, run_at = ?, finished_at = null where id = ? and state = 'failed' ` +
          `and (key is null or not exists (select 1 from jobs other where other.name = jobs.name and other.key = jobs.key ` +
          `and other.state in ${UNFINISHED}))`,
        [this.now(), id],
      );
      if (changed === 1) return 'retried';
      return (await this.exists(id)) ? 'conflict' : 'not-found';
    });
  }

  remove(id: string): Promise<'removed' | 'conflict' | 'not-found'> {
    return guarded(this.orm, async () => {
      const changed = await this.sql.run(`delete from jobs where id = ? and state in ('waiting', 'retry', 'failed')`, [
        id,
      ]);
      if (changed === 1) return 'removed';
      return (await this.exists(id)) ? 'conflict' : 'not-found';
    });
  }

  private async exists(id: string): Promise<boolean> {
    // On the primary, as the write before it was: a replica may not have the job yet.
    return (await this.sql.primary.one('select 1 as found from jobs where id = ?', [id])) !== undefined;
  }

  stats(now: Date): Promise<JobStats> {
    return guarded(this.orm, async () => {
      const due = await this.sql.all<{ name: string; n: number; oldest: number }>(
        `select name, count(*) as n, min(run_at) as oldest from jobs ` +
          `where state in ('waiting', 'retry') and run_at <= ? group by name`,
        [now],
      );
      const failed = await this.sql.one<{ n: number }>(
        `select count(*) as n from jobs where state = 'failed' and finished_at > ?`,
        [new Date(now.getTime() - 3_600_000)],
      );
      const waiting: Record<string, number> = {};
      let oldest = now.getTime();
      for (const row of due) {
        waiting[row.name] = Number(row.n);
        oldest = Math.min(oldest, Number(row.oldest));
      }
      return {
        waiting,
        oldestWaitingSeconds: Math.max(0, (now.getTime() - oldest) / 1000),
        failedLastHour: Number(failed?.n ?? 0),
      };
    });
  }
}

/**
 * A runner over the jobs table: polls for due jobs every `pollIntervalMs` (and at once when a run
 * ends), runs up to `concurrency` at once. One poll at a time, so the concurrency holds while a
 * take is awaited.
 */
class SqlJobRunner implements JobRunner {
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<void>>();
  private stopped = true;
  /** The poll under way, if any. */
  private polling: Promise<void> | undefined;
  /** A poll was asked for while one was under way: poll again once it ends. */
  private again = false;

  constructor(
    private readonly store: SqlJobs,
    private readonly options: JobRunnerOptions,
  ) {}

  async start(handlers: ReadonlyMap<string, JobHandler>, observe?: JobObserver): Promise<void> {
    this.stopped = false;
    this.poll(handlers, observe);
  }

  private poll(handlers: ReadonlyMap<string, JobHandler>, observe: JobObserver | undefined): void {
    if (this.stopped) return;
    if (this.polling) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.polling = this.takeAll(handlers, observe).finally(() => {
      this.polling = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.poll(handlers, observe);
      } else {
        this.timer = setTimeout(() => this.poll(handlers, observe), this.options.pollIntervalMs);
      }
    });
  }

  /** Takes due jobs while this runner has room, and starts each. */
  private async takeAll(handlers: ReadonlyMap<string, JobHandler>, observe: JobObserver | undefined): Promise<void> {
    const names = [...handlers.keys()];
    while (!this.stopped && this.running.size < this.options.concurrency) {
      let run: Run | undefined;
      try {
        run = await this.store.take(names, this.options.timeoutMs);
      } catch (error) {
        this.store.report('taking a job', error);
        return;
      }
      if (!run) return;
      // Taken even if stop() came meanwhile: it runs, and stop() waits for it like the others.
      this.launch(run, handlers.get(run.job.name) as JobHandler, handlers, observe);
    }
  }

  private launch(
    run: Run,
    handler: JobHandler,
    handlers: ReadonlyMap<string, JobHandler>,
    observe: JobObserver | undefined,
  ): void {
    const began = performance.now();
    const done = Promise.resolve()
      .then(() => handler(run.payload, run.job))
      .then(
        () => undefined,
        (error: unknown) => error ?? new Error('rejected'),
      )
      .then(async (error) => {
        const outcome = await this.store.finish(run, error, this.options);
        if (outcome)
          observe?.({ job: run.job, outcome, durationMs: performance.now() - began, ...(error ? { error } : {}) });
      })
      .catch((error: unknown) => this.store.report(`finishing job ${run.job.id}`, error))
      .finally(() => {
        this.running.delete(done);
        this.poll(handlers, observe);
      });
    this.running.add(done);
  }

  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      (async () => {
        await this.polling;
        await Promise.all([...this.running]);
      })(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
  }
}
