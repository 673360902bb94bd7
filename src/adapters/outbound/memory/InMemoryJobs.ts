import { randomUUID } from 'node:crypto';
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
  Transaction,
  Transactions,
} from '../../../application/ports/Jobs.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy } from '../../../application/jobs/retryDelay.js';
import { DEFAULT_RUNNER_OPTIONS, type JobRunnerOptions } from '../../../application/jobs/runnerOptions.js';
import { CronScheduler, type CronSchedulerOptions } from '../schedules/CronScheduler.js';
import { withCommitHooks } from '../afterCommit.js';
import { failureMessage } from '../../../application/jobs/failureMessage.js';

interface StoredJob {
  readonly id: string;
  readonly name: string;
  readonly payload: JobPayload;
  readonly key: string | undefined;
  state: JobState;
  attempts: number;
  lastError: string | null;
  readonly createdAt: Date;
  runAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A transaction of the memory store: its jobs are stored when it commits. */
class MemoryTransaction {
  readonly pending: (() => void)[] = [];
}

/**
 * Jobs in process memory, for tests and the in-memory service: the same queue, runner and admin
 * behaviour as the SQL engines (the contract suite holds all three), nothing durable.
 */
export class InMemoryJobs implements JobQueue, JobAdmin, Transactions {
  private readonly jobs = new Map<string, StoredJob>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const tx = new MemoryTransaction();
    return withCommitHooks<T, Transaction>(async (inner) => {
      const result = await inner(tx as unknown as Transaction);
      for (const commit of tx.pending) commit();
      return result;
    }, work);
  }

  async enqueue(job: NewJob, within?: Transaction): Promise<string | undefined> {
    if (job.key !== undefined && this.unfinished(job.name, job.key)) return undefined;
    const stored = this.stored(randomUUID(), job);
    const store = () => {
      if (job.key === undefined || !this.unfinished(job.name, job.key)) this.jobs.set(stored.id, stored);
    };
    if (within instanceof MemoryTransaction) within.pending.push(store);
    else store();
    return stored.id;
  }

  /** A scheduler over this store (several share it, as instances share a database). */
  scheduler(options: Omit<CronSchedulerOptions, 'fire'> = {}): CronScheduler {
    return new CronScheduler({
      ...options,
      fire: async ({ id, name }) => {
        if (!this.jobs.has(id)) this.jobs.set(id, this.stored(id, { name, payload: {} }));
      },
    });
  }

  private stored(id: string, job: NewJob): StoredJob {
    return {
      id,
      name: job.name,
      payload: structuredClone(job.payload),
      key: job.key,
      state: 'waiting',
      attempts: 0,
      lastError: null,
      createdAt: this.now(),
      runAt: job.runAt ?? this.now(),
      startedAt: null,
      finishedAt: null,
    };
  }

  private unfinished(name: string, key: string): boolean {
    return [...this.jobs.values()].some(
      (j) => j.name === name && j.key === key && j.state !== 'completed' && j.state !== 'failed',
    );
  }

  /** A runner over this store (several runners share it, as instances share a database). */
  runner(options: Partial<JobRunnerOptions> = {}): JobRunner {
    return new MemoryRunner(this, { ...DEFAULT_RUNNER_OPTIONS, ...options });
  }

  /** Marks the next due job of these names active for a run, or answers `undefined`. */
  take(names: ReadonlySet<string>, timeoutMs: number): StoredJob | undefined {
    const now = this.now().getTime();
    const due = [...this.jobs.values()]
      .filter(
        (j) =>
          names.has(j.name) &&
          (((j.state === 'waiting' || j.state === 'retry') && j.runAt.getTime() <= now) ||
            (j.state === 'active' && (j.startedAt?.getTime() ?? 0) + timeoutMs <= now)),
      )
      .sort((a, b) => a.runAt.getTime() - b.runAt.getTime());
    const job = due[0];
    if (!job) return undefined;
    job.state = 'active';
    job.attempts += 1;
    job.startedAt = this.now();
    return job;
  }

  /** Records a run's end, unless the job was taken up again meanwhile (its run timed out). */
  finish(
    job: StoredJob,
    startedAt: Date | null,
    error: unknown,
    retry: RetryPolicy,
  ): 'completed' | 'retried' | 'failed' | undefined {
    if (job.state !== 'active' || job.startedAt !== startedAt) return undefined;
    if (error === undefined) {
      job.state = 'completed';
      job.finishedAt = this.now();
      return 'completed';
    }
    job.lastError = failureMessage(error);
    const delay = retryDelayMs(retry, job.attempts);
    if (delay === undefined) {
      job.state = 'failed';
      job.finishedAt = this.now();
      return 'failed';
    }
    job.state = 'retry';
    job.runAt = new Date(this.now().getTime() + delay);
    return 'retried';
  }

  /**
   * Runs every due job `handlers` has, one at a time, until none is due — the jobs a step of a
   * test left — and answers each run's outcome (a failed run is retried later, as a runner would).
   */
  async runDue(
    handlers: Readonly<Record<string, JobHandler>>,
    retry: RetryPolicy = DEFAULT_RETRY_POLICY,
  ): Promise<{ readonly name: string; readonly outcome: JobOutcome; readonly error?: unknown }[]> {
    const runs: { name: string; outcome: JobOutcome; error?: unknown }[] = [];
    const names = new Set(Object.keys(handlers));
    for (let job = this.take(names, Infinity); job !== undefined; job = this.take(names, Infinity)) {
      const startedAt = job.startedAt;
      let error: unknown;
      try {
        await (handlers[job.name] as JobHandler)(structuredClone(job.payload), {
          id: job.id,
          name: job.name,
          attempt: job.attempts,
        });
      } catch (thrown) {
        error = thrown ?? new Error('rejected');
      }
      const outcome = this.finish(job, startedAt, error, retry) ?? 'completed';
      runs.push({ name: job.name, outcome, ...(error === undefined ? {} : { error }) });
    }
    return runs;
  }

  async list(query: JobQuery): Promise<JobPage> {
    const direction = query.order === 'asc' ? -1 : 1;
    const matching = [...this.jobs.values()]
      .filter(
        (j) =>
          (query.state === undefined || j.state === query.state) && (query.name === undefined || j.name === query.name),
      )
      .sort((a, b) => direction * (b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)));
    const start = (query.page - 1) * query.perPage;
    return {
      total: matching.length,
      items: matching.slice(start, start + query.perPage).map((j) => ({
        id: j.id,
        name: j.name,
        state: j.state,
        attempts: j.attempts,
        lastError: j.lastError,
        createdAt: j.createdAt,
        runAt: j.runAt,
        finishedAt: j.finishedAt,
      })),
    };
  }

  async retry(id: string): Promise<'retried' | 'conflict' | 'not-found'> {
    const job = this.jobs.get(id);
    if (!job) return 'not-found';
    if (job.state !== 'failed') return 'conflict';
    // A key names one unfinished job at most: not while another holds it.
    if (job.key !== undefined && this.unfinished(job.name, job.key)) return 'conflict';
    Object.assign(job, { state: 'retry', attempts: 0, runAt: this.now(), finishedAt: null });
    return 'retried';
  }

  async remove(id: string): Promise<'removed' | 'conflict' | 'not-found'> {
    const job = this.jobs.get(id);
    if (!job) return 'not-found';
    if (job.state === 'active' || job.state === 'completed') return 'conflict';
    this.jobs.delete(id);
    return 'removed';
  }

  async stats(now: Date): Promise<JobStats> {
    const waiting: Record<string, number> = {};
    let oldest = now.getTime();
    let failedLastHour = 0;
    for (const j of this.jobs.values()) {
      if ((j.state === 'waiting' || j.state === 'retry') && j.runAt.getTime() <= now.getTime()) {
        waiting[j.name] = (waiting[j.name] ?? 0) + 1;
        oldest = Math.min(oldest, j.runAt.getTime());
      }
      if (j.state === 'failed' && (j.finishedAt?.getTime() ?? 0) > now.getTime() - 3_600_000) failedLastHour += 1;
    }
    return { waiting, oldestWaitingSeconds: Math.max(0, (now.getTime() - oldest) / 1000), failedLastHour };
  }
}

/** A runner over the memory store: polls for due jobs, runs up to `concurrency` at once. */
class MemoryRunner implements JobRunner {
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<void>>();
  private stopped = true;

  constructor(
    private readonly store: InMemoryJobs,
    private readonly options: JobRunnerOptions,
  ) {}

  async start(handlers: ReadonlyMap<string, JobHandler>, observe?: JobObserver): Promise<void> {
    this.stopped = false;
    const names = new Set(handlers.keys());
    const tick = () => {
      if (this.stopped) return;
      while (this.running.size < this.options.concurrency) {
        const job = this.store.take(names, this.options.timeoutMs);
        if (!job) break;
        const startedAt = job.startedAt;
        const began = performance.now();
        const running: RunningJobView = { id: job.id, name: job.name, attempt: job.attempts };
        const run = (handlers.get(job.name) as JobHandler)(structuredClone(job.payload), running).then(
          () => undefined,
          (error: unknown) => error ?? new Error('rejected'),
        );
        const done = run
          .then((error) => {
            const outcome = this.store.finish(job, startedAt, error, this.options.retry);
            if (outcome)
              observe?.({ job: running, outcome, durationMs: performance.now() - began, ...(error ? { error } : {}) });
          })
          .finally(() => {
            this.running.delete(done);
            if (!this.stopped) setImmediate(tick);
          });
        this.running.add(done);
      }
      this.timer = setTimeout(tick, this.options.pollIntervalMs);
    };
    tick();
  }

  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.running]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
  }
}

type RunningJobView = { readonly id: string; readonly name: string; readonly attempt: number };
