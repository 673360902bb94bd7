import pg from 'pg';
import PgBoss from 'pg-boss';
import { retryDelayMs, type RetryPolicy } from '../../../application/jobs/retryDelay.js';
import {
  DEFAULT_RETENTION,
  DEFAULT_RUNNER_OPTIONS,
  type JobRunnerOptions,
} from '../../../application/jobs/runnerOptions.js';
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
  JobScheduler,
  JobState,
  JobStats,
  NewJob,
  RunningJob,
  Transaction,
} from '../../../application/ports/Jobs.js';
import { sqlOf } from '../mikroorm/SqlTransactions.js';
import type { SqlParam, SqlStatements } from '../mikroorm/sqlExecutor.js';
import { failureMessage } from '../../../application/jobs/failureMessage.js';

/** pg-boss's schema in the service's database. */
const SCHEMA = 'pgboss';
/** The queues pg-boss keeps for itself (its schedules): never listed or counted. */
const NOT_INTERNAL = `name NOT LIKE '\\_\\_pgboss\\_\\_%'`;
/** pg-boss answers every poll faster than this with an error; runners poll no faster. */
const MIN_POLL_INTERVAL_MS = 500;
/** pg-boss refuses a job's expiry of a day or more. */
const MAX_EXPIRE_SECONDS = 24 * 60 * 60 - 1;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one unique index Portico adds to pg-boss's job table: at most one unfinished (created,
 * retry or active) job per name and `singletonKey`. pg-boss 9 had this index; pg-boss 10 replaced
 * it with queue policies, none of which means "a second send of the key is a no-op until the first
 * finished" (`stately` allows one job per key in each state, `singleton` one active). pg-boss's
 * insert is `ON CONFLICT DO NOTHING`, so a send that hits this index answers `null`, as its own
 * policies do; an index on the partitioned table reaches every queue's partition, those created
 * later included (PostgreSQL builds it on each partition as pg-boss attaches it).
 */
const KEY_INDEX = 'job_portico_key';

export interface PgBossJobsOptions {
  /** The service's database (`database.url`): pg-boss keeps its tables in its own schema there. */
  readonly connectionString: string;
  /** pg-boss's own pool, apart from the ORM's (default 4 connections). */
  readonly poolSize?: number;
  /**
   * The runner settings (`jobs.*`): what `runner()` starts from, and what a job is sent with — its
   * timeout (pg-boss `expire_in`) and its retry limit, which pg-boss applies to a run that timed out.
   */
  readonly defaults?: Partial<JobRunnerOptions>;
  /** How long completed jobs are kept (default a day: `jobs.retention` is for failed ones). */
  readonly completedRetentionMs?: number;
  /** How long failed jobs are kept (`jobs.retention`, default 14 days). */
  readonly failedRetentionMs?: number;
  /**
   * How often pg-boss's supervisor looks for runs past their timeout (taken up again) and jobs past
   * their retention (deleted), across all instances (default 60 s; whole seconds, at least 1).
   */
  readonly maintenanceIntervalSeconds?: number;
  /**
   * How often pg-boss's scheduler looks at the schedules (once across all instances) and sends what
   * fired (default 30 s and 5 s; tests shorten both). The firing itself keeps pg-boss's minute.
   */
  readonly scheduleCheckSeconds?: { readonly schedules: number; readonly sends: number };
  /**
   * Whether this engine runs pg-boss's background parts — its scheduler and its supervisor
   * (timeouts, retention) — as every instance of the service does (default true). A short command
   * that only reads or steers jobs (the CLI) runs neither.
   */
  readonly background?: boolean;
  /** Where failures of the background parts go (the supervisor, a pooled connection, a run's bookkeeping); by default nowhere. */
  readonly onError?: (error: unknown) => void;
}

/** pg-boss's job states, and the admin API's names for them. */
type BossState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
const STATE_OF: Readonly<Record<BossState, JobState>> = {
  created: 'waiting',
  retry: 'retry',
  active: 'active',
  completed: 'completed',
  // Portico never cancels (an admin removes); a job cancelled through pg-boss itself shows as
  // failed, and can be retried or removed as one.
  cancelled: 'failed',
  failed: 'failed',
};
const BOSS_STATES_OF: Readonly<Record<JobState, readonly BossState[]>> = {
  waiting: ['created'],
  retry: ['retry'],
  active: ['active'],
  completed: ['completed'],
  failed: ['failed', 'cancelled'],
};

/** A job as the admin queries read it from pg-boss's table. */
interface JobRow {
  readonly id: string;
  readonly name: string;
  readonly state: BossState;
  readonly attempts: number;
  readonly last_error: string | null;
  readonly created_on: Date;
  readonly start_after: Date;
  readonly finished_on: Date | null;
}

/**
 * What the admin API shows of a pg-boss job. `attempts`: pg-boss counts in `retry_count` the runs
 * started after the first (its fetch adds one when `started_on` is already set), so a job ever
 * started has run `retry_count + 1` times — a job waiting for its retry after one failure shows 1 —
 * and one never started (or retried by an admin: `started_on` cleared) 0. `last_error`: pg-boss
 * stores what a run failed with as `output` — `{message}` as Portico fails runs, `{value: {message}}`
 * for a run its supervisor timed out, `{value: "…"}` for one its shutdown failed; a completed job's
 * output is its result, never an error.
 */
const VIEW_COLUMNS = `id, name, state::text AS state,
  CASE WHEN started_on IS NULL THEN 0 ELSE retry_count + 1 END AS attempts,
  CASE WHEN state = 'completed' THEN NULL
    ELSE COALESCE(output->>'message', output#>>'{value,message}',
      CASE WHEN jsonb_typeof(output->'value') = 'string' THEN output->>'value' END) END AS last_error,
  created_on, start_after,
  CASE WHEN state >= 'completed' THEN completed_on END AS finished_on`;

/** A job a runner took: what its run needs, and what tells this run from a later one of the same job. */
interface TakenJob {
  readonly id: string;
  readonly name: string;
  readonly payload: JobPayload;
  readonly attempt: number;
  /** pg-boss's `retry_count` and `started_on` as this run set them. */
  readonly retryCount: number;
  readonly startedOn: Date;
}

/** What a runner uses of its engine. */
interface RunnerEngine {
  take(name: string, count: number, timeoutMs: number): Promise<TakenJob[]>;
  finish(job: TakenJob, error: unknown, retry: RetryPolicy): Promise<JobOutcome | undefined>;
  readonly onError: (error: unknown) => void;
}

/** A statement runner on one connection, as pg-boss's `db` option takes it. */
type Queryable = Pick<pg.PoolClient, 'query'>;
const bossDb = (on: Queryable): PgBoss.Db => ({
  executeSql: (text: string, values?: unknown[]) => on.query(text, values),
});

/**
 * pg-boss's `db` option over a transaction of the service's SQL executor, so that a job sent
 * within it is stored only if that transaction commits. The executor numbers `?` placeholders
 * itself; pg-boss writes `$n` already, and its insert holds no `?` (checked here, so a pg-boss
 * release writing one fails loudly instead of being renumbered).
 */
function joining(tx: SqlStatements): PgBoss.Db {
  return {
    executeSql: async (text: string, values: unknown[] = []) => {
      if (text.includes('?')) throw new Error('a pg-boss statement holding "?" cannot run on the SQL executor');
      return { rows: await tx.all<unknown>(text, values.map(asParam)) };
    },
  };
}

/** A pg-boss value as the executor binds it: its payloads (objects) as JSON, as node-postgres would send them. */
function asParam(value: unknown): SqlParam {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object' && !(value instanceof Date)) return JSON.stringify(value);
  return value as SqlParam;
}

/**
 * Jobs on PostgreSQL through pg-boss 10 (docs/jobs.md): pg-boss stores them in its schema of the
 * service's database and does the locking (`FOR UPDATE SKIP LOCKED` fetches), the retries, the
 * timeouts of runs whose runner died (its supervisor), and the retention. Start it before use, stop
 * it after its runners.
 */
export class PgBossJobs implements JobQueue, JobAdmin {
  private readonly pool: pg.Pool;
  private readonly boss: PgBoss;
  private readonly defaults: JobRunnerOptions;
  private readonly onError: (error: unknown) => void;
  /** pg-boss 10 stores a job only in an existing queue: each name's is created once, on first use. */
  private readonly queues = new Map<string, Promise<void>>();
  /** The queue creation under way in this process, if any: the next waits for it. */
  private creating: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(options: PgBossJobsOptions) {
    this.defaults = { ...DEFAULT_RUNNER_OPTIONS, ...options.defaults };
    this.onError = options.onError ?? (() => undefined);
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 4,
      application_name: 'pgboss',
    });
    this.pool.on('error', this.onError);
    this.boss = new PgBoss({
      db: bossDb(this.pool),
      schema: SCHEMA,
      // pg-boss's scheduler (`jobs.schedules`): once a minute at most, across all instances, it
      // sends the job of each schedule whose cron time came in the last minute.
      schedule: options.background ?? true,
      cronMonitorIntervalSeconds: options.scheduleCheckSeconds?.schedules ?? 30,
      cronWorkerIntervalSeconds: options.scheduleCheckSeconds?.sends ?? 5,
      supervise: options.background ?? true,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 60,
      // Jobs stay in the job table (where the admin API sees them) for their retention, then
      // pg-boss moves them to its archive, which the next maintenance empties.
      archiveCompletedAfterSeconds: Math.max(
        1,
        Math.round((options.completedRetentionMs ?? DEFAULT_RETENTION.completedMs) / 1000),
      ),
      archiveFailedAfterSeconds: Math.max(
        1,
        Math.round((options.failedRetentionMs ?? DEFAULT_RETENTION.failedMs) / 1000),
      ),
      deleteAfterSeconds: 1,
    });
    this.boss.on('error', this.onError);
  }

  /** Installs (or migrates) pg-boss's schema and starts its supervisor. */
  async start(): Promise<void> {
    await this.boss.start();
    const present = await this.pool.query<{ present: boolean }>(
      `SELECT to_regclass('${SCHEMA}.${KEY_INDEX}') IS NOT NULL AS present`,
    );
    if (present.rows[0]?.present) return;
    // Once per database, under a lock so that instances starting together build it once.
    await this.pool.query(`BEGIN;
      SELECT pg_advisory_xact_lock(hashtext('${SCHEMA}.${KEY_INDEX}'));
      CREATE UNIQUE INDEX IF NOT EXISTS ${KEY_INDEX} ON ${SCHEMA}.job (name, singleton_key)
        WHERE state < 'completed' AND singleton_key IS NOT NULL;
      COMMIT;`);
  }

  /** Stops pg-boss's supervisor and closes its pool (stop the runners first). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.boss.stop({ graceful: false, close: false });
    await this.pool.end();
  }

  private queueFor(name: string): Promise<void> {
    let created = this.queues.get(name);
    if (!created) {
      created = this.creating.then(() => this.createQueue(name));
      this.creating = created.catch(() => undefined);
      this.queues.set(name, created);
      void created.catch(() => this.queues.delete(name));
    }
    return created;
  }

  /**
   * Creates a queue unless it exists, one creation at a time across every instance: pg-boss's
   * `create_queue` attaches a partition to the job table, and two sessions doing it at once
   * deadlock (PostgreSQL aborts one: an instance failing to start, or requests answering 500). A
   * transaction's advisory lock, held on a connection of its own while pg-boss works on another, orders
   * them; within this process `creating` orders them too, so waiting creations hold no connection.
   */
  private async createQueue(name: string): Promise<void> {
    const lock = await this.pool.connect();
    let failure: Error | undefined;
    try {
      // A transaction's lock, not a session's: behind a transaction pooler (PgBouncer) a session
      // lock would stay with a server connection when the unlock went to another.
      await lock.query(`BEGIN; SELECT pg_advisory_xact_lock(hashtext('${SCHEMA}.create_queue'))`);
      try {
        if (!(await this.boss.getQueue(name))) await this.boss.createQueue(name);
      } finally {
        await lock.query('COMMIT');
      }
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // A connection whose unlock may not have run is closed, never handed out holding the lock.
      lock.release(failure);
    }
  }

  async enqueue(job: NewJob, within?: Transaction): Promise<string | undefined> {
    await this.queueFor(job.name);
    const id = await this.boss.send(job.name, job.payload, {
      ...(job.key !== undefined ? { singletonKey: job.key } : {}),
      ...(job.runAt ? { startAfter: job.runAt } : {}),
      ...this.sendOptions(),
      ...(within ? { db: joining(sqlOf(within)) } : {}),
    });
    return id ?? undefined;
  }

  /** What every job is sent with, enqueued or fired by a schedule. */
  private sendOptions() {
    return {
      expireInSeconds: Math.min(MAX_EXPIRE_SECONDS, Math.max(1, Math.ceil(this.defaults.timeoutMs / 1000))),
      // What pg-boss does itself when a run times out: retried at once (as the memory engine takes
      // such a job up again), counted against the limit. Failed runs are retried by `finish`.
      retryLimit: this.defaults.retry.limit,
      retryDelay: 0,
      retryBackoff: false,
    };
  }

  /**
   * pg-boss's schedules, made `jobs.schedules`: each named job's cron (UTC) stored in its schedule
   * table, which every instance's pg-boss reads, and any other schedule there removed. pg-boss
   * fires them while the engine runs: `stop` leaves that to the engine's own stop.
   */
  scheduler(): JobScheduler {
    return {
      start: async (schedules) => {
        for (const [name, cron] of schedules) {
          await this.queueFor(name);
          await this.boss.schedule(name, cron, {}, { tz: 'UTC', ...this.sendOptions() });
        }
        for (const { name } of await this.boss.getSchedules())
          if (!schedules.has(name)) await this.boss.unschedule(name);
      },
      stop: async () => undefined,
    };
  }

  /** A runner over this engine (several share its pool; each instance of the service has its own). */
  runner(options: Partial<JobRunnerOptions> = {}): JobRunner {
    const settings = { ...this.defaults, ...options };
    return new PgBossRunner(
      {
        take: (name, count, timeoutMs) => this.take(name, count, timeoutMs),
        finish: (job, error, retry) => this.finish(job, error, retry),
        onError: this.onError,
      },
      { ...settings, pollIntervalMs: Math.max(MIN_POLL_INTERVAL_MS, settings.pollIntervalMs) },
    );
  }

  /**
   * Takes up to `count` due jobs of `name` through pg-boss's fetch (each now active, for this
   * runner alone). The runner's timeout is the one pg-boss's supervisor applies: a job sent with
   * another has its `expire_in` set to it.
   */
  private async take(name: string, count: number, timeoutMs: number): Promise<TakenJob[]> {
    const jobs = await this.boss.fetch<JobPayload>(name, { batchSize: count, includeMetadata: true });
    const other = jobs.filter((job) => Number(job.expireInSeconds) * 1000 !== timeoutMs).map((job) => job.id);
    if (other.length > 0)
      await this.pool.query(
        `UPDATE ${SCHEMA}.job SET expire_in = $3 * interval '1 millisecond'
          WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`,
        [name, other, timeoutMs],
      );
    return jobs.map((job) => ({
      id: job.id,
      name: job.name,
      payload: job.data,
      attempt: job.retryCount + 1,
      retryCount: job.retryCount,
      startedOn: job.startedOn,
    }));
  }

  /**
   * Records a run's end through pg-boss's `complete` or `fail`, in one transaction that first
   * checks the job is still this run's (active, same `retry_count` and `started_on` — node-postgres
   * reads the time to the millisecond), so a run that timed out and was taken up again elsewhere
   * changes nothing.
   *
   * Exact retry delays: pg-boss 10 computes a retry's `start_after` itself — a fixed `retry_delay`
   * in whole seconds, or with `retry_backoff` a doubling with random jitter and no cap — which is not
   * the contract's 1 s, 2 s, 4 s … at most `retry.maxDelayMs`. So this runner decides, as every
   * engine does, with `retryDelayMs`: when the retries are spent it lowers the job's `retry_limit` to
   * its `retry_count` so pg-boss's fail makes it failed; otherwise it makes sure one more retry is
   * allowed, lets pg-boss's fail make it a retry, and sets its `start_after` to `now() + delay`
   * in the same transaction, so no runner sees the job between the two.
   */
  private async finish(job: TakenJob, error: unknown, retry: RetryPolicy): Promise<JobOutcome | undefined> {
    return this.inTransaction(async (client) => {
      const key = [job.name, job.id];
      const mine = await client.query(
        `SELECT 1 FROM ${SCHEMA}.job
          WHERE name = $1 AND id = $2 AND state = 'active' AND retry_count = $3
            AND started_on BETWEEN $4::timestamptz - interval '1 millisecond' AND $4::timestamptz + interval '1 millisecond'
          FOR UPDATE`,
        [...key, job.retryCount, job.startedOn],
      );
      if (mine.rowCount === 0) return undefined;
      const db = bossDb(client);
      if (error === undefined) {
        await this.boss.complete(job.name, job.id, {}, { db });
        return 'completed';
      }
      const delay = retryDelayMs(retry, job.attempt);
      await client.query(
        `UPDATE ${SCHEMA}.job
          SET retry_limit = CASE WHEN $3 THEN retry_count ELSE GREATEST(retry_limit, retry_count + 1) END
          WHERE name = $1 AND id = $2`,
        [...key, delay === undefined],
      );
      await this.boss.fail(job.name, job.id, { message: failureMessage(error) }, { db });
      if (delay === undefined) return 'failed';
      await client.query(
        `UPDATE ${SCHEMA}.job SET start_after = now() + $3 * interval '1 millisecond'
          WHERE name = $1 AND id = $2 AND state = 'retry'`,
        [...key, delay],
      );
      return 'retried';
    });
  }

  private async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async list(query: JobQuery): Promise<JobPage> {
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const where = `WHERE ${NOT_INTERNAL} AND ($1::text IS NULL OR name = $1) AND ($2::text[] IS NULL OR state::text = ANY($2))`;
    const filter = [query.name ?? null, query.state ? [...BOSS_STATES_OF[query.state]] : null];
    const [rows, total] = await Promise.all([
      this.pool.query<JobRow>(
        `SELECT ${VIEW_COLUMNS} FROM ${SCHEMA}.job ${where} ORDER BY created_on ${direction}, id ${direction} LIMIT $3 OFFSET $4`,
        [...filter, query.perPage, (query.page - 1) * query.perPage],
      ),
      this.pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${SCHEMA}.job ${where}`, filter),
    ]);
    return {
      total: total.rows[0]?.total ?? 0,
      items: rows.rows.map((row) => ({
        id: row.id,
        name: row.name,
        state: STATE_OF[row.state],
        attempts: row.attempts,
        lastError: row.last_error,
        createdAt: row.created_on,
        runAt: row.start_after,
        finishedAt: row.finished_on,
      })),
    };
  }

  /**
   * Not pg-boss's `retry`, which adds one run to the job's limit and keeps its count: here a failed
   * job starts over — its retries allowed again, no run counted (`started_on` cleared, so pg-boss's
   * next fetch counts none), due now. Its key taken meanwhile by another unfinished job: conflict.
   */
  async retry(id: string): Promise<'retried' | 'conflict' | 'not-found'> {
    const found = await this.find(id);
    if (!found) return 'not-found';
    try {
      const retried = await this.pool.query(
        `UPDATE ${SCHEMA}.job
          SET state = 'retry', retry_count = 0, retry_limit = $3, started_on = NULL, completed_on = NULL,
            start_after = now()
          WHERE name = $1 AND id = $2 AND state IN ('failed', 'cancelled')`,
        [found.name, id, this.defaults.retry.limit],
      );
      return retried.rowCount ? 'retried' : 'conflict';
    } catch (error) {
      if ((error as { code?: unknown }).code === '23505') return 'conflict';
      throw error;
    }
  }

  /** pg-boss's `deleteJob`, on a job locked and found waiting, waiting for a retry, or failed. */
  async remove(id: string): Promise<'removed' | 'conflict' | 'not-found'> {
    if (!UUID.test(id)) return 'not-found';
    return this.inTransaction(async (client) => {
      const found = await client.query<{ name: string; state: BossState }>(
        `SELECT name, state::text AS state FROM ${SCHEMA}.job WHERE id = $1 AND ${NOT_INTERNAL} FOR UPDATE`,
        [id],
      );
      const job = found.rows[0];
      if (!job) return 'not-found';
      if (job.state === 'active' || job.state === 'completed') return 'conflict';
      await this.boss.deleteJob(job.name, id, { db: bossDb(client) });
      return 'removed';
    });
  }

  private async find(id: string): Promise<{ name: string } | undefined> {
    if (!UUID.test(id)) return undefined;
    const found = await this.pool.query<{ name: string }>(
      `SELECT name FROM ${SCHEMA}.job WHERE id = $1 AND ${NOT_INTERNAL}`,
      [id],
    );
    return found.rows[0];
  }

  async stats(now: Date): Promise<JobStats> {
    const [waiting, failed] = await Promise.all([
      this.pool.query<{ name: string; count: number; oldest: Date }>(
        `SELECT name, count(*)::int AS count, min(start_after) AS oldest FROM ${SCHEMA}.job
          WHERE ${NOT_INTERNAL} AND state < 'active' AND start_after <= $1 GROUP BY name`,
        [now],
      ),
      this.pool.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM ${SCHEMA}.job
          WHERE ${NOT_INTERNAL} AND state IN ('failed', 'cancelled') AND completed_on > $1::timestamptz - interval '1 hour'`,
        [now],
      ),
    ]);
    const oldest = Math.min(now.getTime(), ...waiting.rows.map((row) => row.oldest.getTime()));
    return {
      waiting: Object.fromEntries(waiting.rows.map((row) => [row.name, row.count])),
      oldestWaitingSeconds: Math.max(0, (now.getTime() - oldest) / 1000),
      failedLastHour: failed.rows[0]?.count ?? 0,
    };
  }
}

/**
 * Takes jobs through pg-boss's fetch and runs up to `concurrency` at once, across its handlers'
 * names; polls every `pollIntervalMs` while idle, and again at once whenever a run ends.
 *
 * Not pg-boss's `work()`: its worker records a run's end without waiting for it and without
 * telling this run from a later one (a run past its timeout can complete the next one), races each
 * handler against the expiry the job was sent with, and limits each queue apart — where this runner
 * records every end before it counts as done, ignores a run that was taken up again, applies its
 * own timeout and retry rule, and shares one limit across names. The locking, retries, timeouts and
 * retention stay pg-boss's.
 */
class PgBossRunner implements JobRunner {
  private handlers: ReadonlyMap<string, JobHandler> = new Map();
  private observe: JobObserver | undefined;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  /** The fetches under way, if any; `again` asks it to look once more when it is done. */
  private taking: Promise<void> | undefined;
  private again = false;
  /** Which name the next round of fetches starts with, so that no name waits behind another. */
  private first = 0;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly engine: RunnerEngine,
    private readonly options: JobRunnerOptions,
  ) {}

  async start(handlers: ReadonlyMap<string, JobHandler>, observe?: JobObserver): Promise<void> {
    this.handlers = handlers;
    this.observe = observe;
    this.stopped = false;
    this.tick();
  }

  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const settled = async () => {
      await this.taking;
      while (this.running.size > 0) await Promise.all([...this.running]);
    };
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  private tick(): void {
    if (this.stopped) return;
    if (this.taking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.taking = this.takeAll().finally(() => {
      this.taking = undefined;
      if (this.again) this.tick();
      else if (!this.stopped) this.timer = setTimeout(() => this.tick(), this.options.pollIntervalMs);
    });
  }

  private async takeAll(): Promise<void> {
    const names = [...this.handlers.keys()];
    do {
      this.again = false;
      for (let n = 0; n < names.length && !this.stopped; n += 1) {
        const free = this.options.concurrency - this.running.size;
        if (free <= 0) break;
        const name = names[(this.first + n) % names.length] as string;
        let jobs: TakenJob[];
        try {
          jobs = await this.engine.take(name, free, this.options.timeoutMs);
        } catch (error) {
          this.engine.onError(error);
          return;
        }
        // Taken, so run even if the runner stopped meanwhile (`stop` waits for them too).
        for (const job of jobs) this.run(job, this.handlers.get(name) as JobHandler);
        if (jobs.length === free) this.again = true;
      }
      this.first = (this.first + 1) % Math.max(1, names.length);
    } while (this.again && !this.stopped);
  }

  private run(job: TakenJob, handler: JobHandler): void {
    const running: RunningJob = { id: job.id, name: job.name, attempt: job.attempt };
    const began = performance.now();
    const done = (async () => {
      let error: unknown;
      try {
        await handler(job.payload, running);
      } catch (thrown) {
        error = thrown ?? new Error('rejected');
      }
      const outcome = await this.engine.finish(job, error, this.options.retry);
      if (outcome)
        this.observe?.({
          job: running,
          outcome,
          durationMs: performance.now() - began,
          ...(error !== undefined ? { error } : {}),
        });
    })()
      .catch((error: unknown) => this.engine.onError(error))
      .finally(() => {
        this.running.delete(done);
        this.tick();
      });
    this.running.add(done);
  }
}
