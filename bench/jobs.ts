/**
 * The background-jobs rows of `npm run bench` (docs/jobs.md), on SQLite (a
 * scratch file) and, with SVC_TEST_POSTGRES_URL set, on that PostgreSQL database. bench/run.ts
 * runs it as a child process (alone with `npm run bench -- --only jobs`); it can also run by itself:
 *
 *   node --import tsx bench/jobs.ts <scratch dir> [--jobs 2000] [--runners 4] [--duration 1] [--rounds 3] [--concurrency 50]
 *
 * Progress goes to stderr; the figures to stdout, as one line `{"jobs": {…}}`.
 *
 * 1. Jobs completed per second. `--jobs` no-op jobs are enqueued first (through the queue, no
 *    runner taking them), then `--runners` runners start and the clock runs from their start to
 *    the last job's recorded completion (the runner's observer, told after the engine stored the
 *    job completed). A runner is what one instance of the service runs: the engine opened by
 *    `openJobs` (src/main/infrastructure/jobs.ts) on a database connection of its own — SqlJobs on its own
 *    connection to the file; PgBossJobs with its own pg-boss pool of 4 — and its `runner()` with
 *    the `jobs.*` defaults (concurrency 4; idle poll 250 ms on SQLite, 500 ms on pg-boss). All of
 *    them run in this one process (one event loop), so "4 runners × concurrency 4" is 4 engine
 *    instances taking up to 16 jobs at a time, not 4 processes. Before it, every job left in the
 *    table is deleted (on PostgreSQL every job of `pgboss.job` but pg-boss's own `__pgboss__…`
 *    ones), and at the end the bench's jobs and queues.
 *
 * 2. Enqueue inside a write. POST /api/v1/products enqueues no job (one insert, no transaction),
 *    and registration, which stores its user and verification job in one transaction, spends most
 *    of its time on the password hash, so the cost cannot be read off a real POST. It is measured at the ports instead, on the products table, `--concurrency`
 *    callers at once for `--duration` s, in `--rounds` alternating rounds (medians):
 *      - "product insert, no transaction": the generic CreateResource use case on the products' SqlResourceRepository,
 *        exactly the write POST create does today (its HTTP work left out);
 *      - "write transaction: product insert": `Transactions.run(tx => insert)`, the same statement
 *        (built from the product's table like the repository's) on the transaction;
 *      - "… + enqueue": the same with `JobQueue.enqueue(job, tx)` in that transaction — what a
 *        create that must be followed by a job would do.
 *    The ratio is to the transaction without the enqueue: what adding a job to a write costs. Its
 *    first row shows what making POST create's write a transaction would cost besides. Latencies
 *    include the wait for a connection (SQLite has one; the ORM's PostgreSQL pool 10), as a
 *    request's would. The inserted products are deleted afterwards on PostgreSQL.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Database } from '../src/adapters/outbound/mikroorm/database.js';
import { columnsOf } from '../src/adapters/outbound/mikroorm/resourceTable.js';
import { tableOf } from '../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { sqlOf } from '../src/adapters/outbound/mikroorm/SqlTransactions.js';
import type { SqlParam } from '../src/adapters/outbound/mikroorm/sqlExecutor.js';
import { SystemClock } from '../src/adapters/outbound/system/SystemClock.js';
import { UuidGenerator } from '../src/adapters/outbound/system/UuidGenerator.js';
import { CreateResource } from '../src/application/resources/CreateResource.js';
import type { JobHandler, JobOutcome, Transaction } from '../src/application/ports/Jobs.js';
import { Product } from '../src/domain/product/Product.js';
import type { Config } from '../src/main/config/schema.js';
import { openDatabase } from '../src/main/infrastructure/database.js';
import { openJobs, type JobsEngine } from '../src/main/infrastructure/jobs.js';
import { createLogger } from '../src/main/infrastructure/logger.js';
import { readConfig } from '../src/main/config/readConfig.js';
// Every required field at a valid value, a field added to products later included (as bench/seed.ts).
import { productInput } from '../test/support/resources/product.js';

const PRODUCT_TABLE = tableOf(Product);
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    jobs: { type: 'string', default: '2000' },
    runners: { type: 'string', default: '4' },
    duration: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '50' },
  },
});
const DIR = positionals[0];
if (!DIR) throw new Error('usage: node --import tsx bench/jobs.ts <scratch dir> [--jobs 2000] …');
const JOBS = Number(values.jobs);
const RUNNERS = Number(values.runners);
const DURATION_S = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
/** A run that has not completed every job by then is reported as it stands. */
const DRAIN_TIMEOUT_MS = 120_000;
const NOOP_JOB = 'bench.noop';
const CREATED_JOB = 'bench.product-created';
const PRODUCT_NAME = 'Benchmark job-cost product';

const say = (line: string): void => void process.stderr.write(`${line}\n`);
const logger = createLogger('warn', 'json');

type Engine = 'sqlite' | 'postgresql';
const SUFFIX: Record<Engine, string> = { sqlite: ' (SQLite)', postgresql: ' (PostgreSQL)' };

function configFor(url: string): Config {
  const loaded = readConfig({ ...process.env, SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'warn' });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return loaded.config;
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const round2 = (x: number): number => Number(x.toFixed(2));

/** Every job but pg-boss's own queues' (on SQLite, the whole table). */
async function deleteJobs(database: Database, only?: readonly string[]): Promise<void> {
  if (database.sql.dialect === 'sqlite') {
    await database.sql.run(
      only ? `delete from jobs where name in (${only.map(() => '?').join(', ')})` : 'delete from jobs',
      [...(only ?? [])],
    );
    return;
  }
  if (only) {
    for (const name of only) {
      await database.sql.run('delete from pgboss.job where name = ?', [name]);
      await database.sql.run('delete from pgboss.archive where name = ?', [name]);
      await database.sql.run('select pgboss.delete_queue(name) from pgboss.queue where name = ?', [name]);
    }
    return;
  }
  await database.sql.run(`delete from pgboss.job where name not like '\\_\\_pgboss\\_\\_%'`);
}

/** Row 1: `--jobs` no-op jobs enqueued, then `--runners` engines' runners start; jobs completed per second. */
async function throughput(url: string, engine: Engine): Promise<Record<string, unknown>> {
  const config = configFor(url);
  // One database and one engine per runner, as each instance of the service opens its own.
  const databases: Database[] = [];
  const engines: JobsEngine[] = [];
  try {
    for (let n = 0; n < RUNNERS; n += 1) {
      const database = await openDatabase(config);
      databases.push(database);
      if (n === 0) await database.migrate();
      engines.push(await openJobs(config, database, logger));
    }
    const [first] = databases as [Database];
    const [queue] = engines as [JobsEngine];
    await deleteJobs(first);

    say(`bench: jobs${SUFFIX[engine]} — enqueuing ${JOBS} no-op jobs…`);
    const enqueueStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < JOBS) {
          const n = next++;
          await queue.queue.enqueue({ name: NOOP_JOB, payload: { n } });
        }
      }),
    );
    const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;

    say(`bench: jobs${SUFFIX[engine]} — ${RUNNERS} runners × concurrency ${config.jobs.concurrency} running them…`);
    const handlers = new Map<string, JobHandler>([[NOOP_JOB, async () => undefined]]);
    const outcomes: Record<JobOutcome, number> = { completed: 0, retried: 0, failed: 0 };
    const perRunner = engines.map(() => 0);
    let done: () => void = () => undefined;
    const allDone = new Promise<void>((resolve) => (done = resolve));
    const runners = engines.map((e) => e.runner());
    const started = performance.now();
    await Promise.all(
      runners.map((runner, r) =>
        runner.start(handlers, ({ outcome }) => {
          outcomes[outcome] += 1;
          if (outcome === 'completed') perRunner[r]! += 1;
          if (outcomes.completed + outcomes.failed >= JOBS) done();
        }),
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      allDone.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), DRAIN_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(runners.map((runner) => runner.stop(5000)));
    if (timedOut) say(`bench: jobs${SUFFIX[engine]} — WARNING: not all done within ${DRAIN_TIMEOUT_MS / 1000} s`);
    const stored = (await queue.admin.list({ state: 'completed', name: NOOP_JOB, page: 1, perPage: 1 })).total;
    await deleteJobs(first, [NOOP_JOB]);
    return {
      scenario: `jobs completed: ${JOBS.toLocaleString('en')} no-op queued, ${RUNNERS} runners × concurrency ${config.jobs.concurrency}${SUFFIX[engine]}`,
      database: engine,
      jobs: JOBS,
      runners: RUNNERS,
      concurrency_per_runner: config.jobs.concurrency,
      jobs_per_s: Math.round(outcomes.completed / seconds),
      seconds: round2(seconds),
      completed: outcomes.completed,
      stored_completed: stored,
      errors: JOBS - outcomes.completed,
      completed_per_runner: perRunner,
      enqueue_per_s: Math.round(JOBS / enqueueSeconds),
      ...(timedOut ? { timed_out: true } : {}),
    };
  } finally {
    for (const e of engines) await e.stop().catch(() => undefined);
    for (const d of databases) await d.close().catch(() => undefined);
  }
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** `op` by `CONCURRENCY` callers at once for `seconds`: completions per second and their latencies. */
async function drive(op: () => Promise<unknown>, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await op();
          latencies.push(performance.now() - t0);
        } catch (error) {
          errors += 1;
          firstError ??= error;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  if (firstError) say(`bench: ${errors} failed, the first with: ${String(firstError)}`);
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

/** Row 2: a product write with and without a job enqueued in its transaction. */
async function enqueueCost(url: string, engine: Engine): Promise<Record<string, unknown>[]> {
  const config = configFor(url);
  const database = await openDatabase(config);
  let jobs: JobsEngine | undefined;
  try {
    await database.migrate();
    jobs = await openJobs(config, database, logger);
    const { queue, transactions } = jobs;
    const ids = new UuidGenerator();
    const create = new CreateResource({
      entity: Product,
      rows: new SqlResourceRepository(database, PRODUCT_TABLE),
      ids,
      clock: new SystemClock(),
    });
    // The repository's insert, built from the product's table as it builds it (SqlResourceRepository).
    const columns = columnsOf(PRODUCT_TABLE);
    if (columns.some((c) => c.kind === 'decimal'))
      throw new Error('bench/jobs.ts: products gained a decimal column; bind it as SqlResourceRepository does');
    const insert = `insert into ${PRODUCT_TABLE.table} (${columns.map((c) => c.name).join(', ')}) values (${columns.map(() => '?').join(', ')})`;
    const insertIn = async (tx: Transaction): Promise<string> => {
      const product = Product.create({ ...productInput, name: PRODUCT_NAME, id: ids.newId() }, new Date());
      const props = PRODUCT_TABLE.toRow(product) as unknown as Record<string, unknown>;
      await sqlOf(tx).run(
        insert,
        columns.map((c) => (props[c.prop] ?? null) as SqlParam),
      );
      return product.id;
    };
    const variants = [
      {
        key: 'insert',
        label: 'product insert, no transaction (the write of POST create)',
        op: () => create.execute({ ...productInput, name: PRODUCT_NAME }),
      },
      {
        key: 'transaction',
        label: 'write transaction: product insert',
        op: () => transactions.run(insertIn),
      },
      {
        key: 'enqueue',
        label: 'write transaction: product insert + enqueue',
        op: () =>
          transactions.run(async (tx) => {
            const id = await insertIn(tx);
            await queue.enqueue({ name: CREATED_JOB, payload: { id } }, tx);
          }),
      },
    ] as const;
    say(`bench: enqueue cost${SUFFIX[engine]} — warming up…`);
    for (const variant of variants) await drive(variant.op, 0.3);
    const figures = new Map<string, Figures[]>(variants.map((v) => [v.key, []]));
    for (let round = 1; round <= ROUNDS; round += 1) {
      // Which goes first turns every round, so none is always driven right after another.
      const order = variants.map((_, n) => variants[(n + round - 1) % variants.length]!);
      for (const variant of order) {
        say(`bench: enqueue cost${SUFFIX[engine]} — round ${round}/${ROUNDS}: ${variant.label}…`);
        figures.get(variant.key)!.push(await drive(variant.op, DURATION_S));
      }
    }
    const rps = (key: string) => median(figures.get(key)!.map((f) => f.rps));
    const without = rps('transaction');
    return variants.map((variant) => {
      const measured = figures.get(variant.key)!;
      return {
        scenario: `${variant.label}${SUFFIX[engine]}`,
        database: engine,
        rps: Math.round(rps(variant.key)),
        p50_ms: round2(median(measured.map((f) => f.p50))),
        p99_ms: round2(median(measured.map((f) => f.p99))),
        errors: measured.reduce((n, f) => n + f.errors, 0),
        rounds_rps: measured.map((f) => Math.round(f.rps)),
        ratio_to_without_enqueue: Number((rps(variant.key) / without).toFixed(3)),
      };
    });
  } finally {
    try {
      await deleteJobs(database, [CREATED_JOB]);
      if (database.sql.dialect === 'postgresql')
        await database.sql.run('delete from products where name = ?', [PRODUCT_NAME]);
    } finally {
      await jobs?.stop().catch(() => undefined);
      await database.close();
    }
  }
}

mkdirSync(DIR, { recursive: true });
const targets: [Engine, string][] = [['sqlite', `sqlite:${join(DIR, 'jobs.sqlite')}`]];
const postgresUrl = process.env.SVC_TEST_POSTGRES_URL?.trim();
if (postgresUrl) targets.push(['postgresql', postgresUrl]);
else say('bench: jobs — SVC_TEST_POSTGRES_URL is not set: no PostgreSQL rows');
const rows: Record<string, unknown>[] = [];
for (const [engine, url] of targets) {
  rows.push(await throughput(url, engine));
  rows.push(...(await enqueueCost(url, engine)));
}
process.stdout.write(
  `${JSON.stringify({
    jobs: {
      settings: {
        jobs: JOBS,
        runners: RUNNERS,
        write_concurrency: CONCURRENCY,
        write_duration_s: DURATION_S,
        rounds: ROUNDS,
      },
      rows,
    },
  })}\n`,
);
