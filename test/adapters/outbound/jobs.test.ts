import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryJobs } from '../../../src/adapters/outbound/memory/InMemoryJobs.js';
import { nextDue, SqlJobs } from '../../../src/adapters/outbound/mikroorm/SqlJobs.js';
import { DEFAULT_RUNNER_OPTIONS } from '../../../src/application/jobs/runnerOptions.js';
import { SqlTransactions } from '../../../src/adapters/outbound/mikroorm/SqlTransactions.js';
import type { JobOutcome, JobRunner } from '../../../src/application/ports/Jobs.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { jobsContract } from './contracts/jobs.contract.js';
import type { Database } from '../../../src/adapters/outbound/mikroorm/database.js';
import { PgBossJobs } from '../../../src/adapters/outbound/pgboss/PgBossJobs.js';
import { connectDatabase } from '../../support/database.js';
import { externalService } from '../../support/env.js';

describe('Jobs on every engine', () => {
  jobsContract('in memory', async () => {
    const jobs = new InMemoryJobs();
    return {
      queue: jobs,
      admin: jobs,
      transactions: jobs,
      runner: (options) => jobs.runner(options),
      pollIntervalMs: 20,
      schedulers: async (count, now) => Array.from({ length: count }, () => jobs.scheduler({ now })),
    };
  });

  const dir = mkdtempSync(join(tmpdir(), 'portico-jobs-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  // The SQLite engine; PostgreSQL's is pg-boss (its own suite).
  for (const target of sqlTargets(dir, 'jobs.sqlite').filter((t) => t.url()?.startsWith('sqlite:'))) {
    describe(`the SQLite engine on ${target.name}`, () => {
      const database = new SqlDatabaseFixture(target);
      before(() => database.open());
      after(() => database.close());

      jobsContract(`SqlJobs on ${target.name}`, async () => {
        await database.db.sql.run('delete from jobs');
        const jobs = new SqlJobs(database.db);
        return {
          queue: jobs,
          admin: jobs,
          transactions: new SqlTransactions(database.db),
          runner: (options) => jobs.runner(options),
          pollIntervalMs: 20,
          // Each over its own SqlJobs on the same table, as instances would be.
          schedulers: async (count, now) =>
            Array.from({ length: count }, () => new SqlJobs(database.db, { now }).scheduler()),
        };
      });

      describe(`SqlJobs on ${target.name}, beyond the contract`, () => {
        const stops: (() => Promise<void>)[] = [];
        beforeEach(() => database.db.sql.run('delete from jobs'));
        afterEach(async () => {
          for (const stop of stops.splice(0)) await stop();
        });
        const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

        it('finds the next due job through (state, run_at), never reading the completed jobs kept, for one name or several', async () => {
          for (const count of [1, 3]) {
            const names = ['mail.send', 'test.b', 'test.c'].slice(0, count);
            const plan = await database.db.sql.all<{ detail: string }>(`explain query plan ${nextDue(count)}`, [
              ...names,
              new Date(),
              new Date(),
            ]);
            const details = plan.map((step) => step.detail).join(' | ');
            expect(details, details).to.include('jobs_state_run_at_index');
            expect(details, details).to.not.include('jobs_name_key_index');
          }
        });

        it('deletes completed jobs a day after they finished and failed ones after jobs.retention, nothing unfinished', async () => {
          const DAY = 24 * 60 * 60 * 1000;
          let now = new Date('2026-02-01T00:00:00.000Z');
          const jobs = new SqlJobs(database.db, { now: () => now, failedRetentionMs: 3 * DAY });
          const ids = {
            done: (await jobs.enqueue({ name: 'test.ok', payload: {} }))!,
            broken: (await jobs.enqueue({ name: 'test.broken', payload: {} }))!,
            waiting: (await jobs.enqueue({ name: 'test.later', payload: {} }))!,
          };
          for (const name of ['test.ok', 'test.broken']) {
            const run = (await jobs.take([name], 60_000))!;
            const error = name === 'test.broken' ? new Error('no') : undefined;
            await jobs.finish(run, error, {
              ...DEFAULT_RUNNER_OPTIONS,
              retry: { ...DEFAULT_RUNNER_OPTIONS.retry, limit: 0 },
            });
          }
          const left = async () => (await jobs.list({ page: 1, perPage: 10 })).items.map((j) => j.id).sort();
          now = new Date(now.getTime() + DAY);
          expect(await jobs.purgeFinished(now)).to.equal(0);
          now = new Date(now.getTime() + 1);
          expect(await jobs.purgeFinished(now)).to.equal(1);
          expect(await left()).to.deep.equal([ids.broken, ids.waiting].sort());
          now = new Date(now.getTime() + 2 * DAY);
          expect(await jobs.purgeFinished(now)).to.equal(1);
          expect(await left()).to.deep.equal([ids.waiting]);
        });

        it('ignores the late end of a run that timed out: the run that took the job up again decides', async () => {
          const jobs = new SqlJobs(database.db);
          const id = (await jobs.enqueue({ name: 'test.slow', payload: {} }))!;
          const outcomes: [number, JobOutcome][] = [];
          const runner = jobs.runner({ timeoutMs: 500, pollIntervalMs: 20, concurrency: 2 });
          stops.push(() => runner.stop(0));
          await runner.start(
            new Map([
              [
                'test.slow',
                async (_payload, running) => {
                  // The first run ends after the second took the job up (at 500 ms), which fails
                  // before its own timeout.
                  if (running.attempt === 1) return void (await sleep(750));
                  await sleep(350);
                  throw new Error('second run failed');
                },
              ],
            ]),
            ({ job, outcome }) => outcomes.push([job.attempt, outcome]),
          );
          await sleep(1300);
          const view = (await jobs.list({ page: 1, perPage: 10 })).items.find((j) => j.id === id);
          expect(view).to.include({ state: 'retry', attempts: 2, lastError: 'second run failed', finishedAt: null });
          expect(outcomes).to.deep.equal([[2, 'retried']]);
        });

        if (target.persistent)
          it('runs each job once with runners on two connections to the file (two instances)', async () => {
            const other = await database.another();
            stops.push(() => other.close());
            const mine = new SqlJobs(database.db);
            const theirs = new SqlJobs(other);
            for (let n = 0; n < 30; n += 1) await mine.enqueue({ name: 'test.once', payload: { n } });
            const runs = new Map<string, number>();
            const handler = async (_payload: unknown, running: { id: string }) => {
              runs.set(running.id, (runs.get(running.id) ?? 0) + 1);
              await sleep(5);
            };
            for (const jobs of [mine, theirs, mine, theirs]) {
              const runner = jobs.runner({ pollIntervalMs: 10, concurrency: 3 });
              stops.unshift(() => runner.stop(1000));
              await runner.start(new Map([['test.once', handler]]));
            }
            const until = Date.now() + 10_000;
            while ((await mine.list({ state: 'completed', page: 1, perPage: 1 })).total < 30 && Date.now() < until)
              await sleep(20);
            await sleep(100);
            expect(runs.size).to.equal(30);
            expect([...runs.values()].every((n) => n === 1)).to.equal(true);
          });
      });
    });
  }
  // PostgreSQL's engine: pg-boss, in its schema of the test database. That database is shared with
  // other suites: each test deletes only the jobs the tests here send (named `test.…`).
  describe('the PostgreSQL engine (pg-boss)', () => {
    const url = externalService('SVC_TEST_POSTGRES_URL');
    let database: Database | undefined;
    let engine: PgBossJobs | undefined;
    /** A started engine over emptied test jobs, and the database whose transactions it joins. */
    const open = async (): Promise<{ jobs: PgBossJobs; db: Database } | undefined> => {
      if (!url) return undefined;
      database ??= await connectDatabase(url);
      // Runs past their timeout are taken up within about a second.
      engine = await started();
      // Every job and schedule left in the shared test database — the suites that started a service
      // leave their account mail and tokens.purge — since the contract lists and counts all jobs
      // (pg-boss's own queues stay).
      await database.sql.run('delete from pgboss.schedule');
      for (const table of ['job', 'archive'])
        await database.sql.run(`delete from pgboss.${table} where name not like '\\_\\_pgboss\\_\\_%'`);
      return { jobs: engine, db: database };
    };
    /** Other instances' engines (schedulers), stopped with the test's. */
    const others: PgBossJobs[] = [];
    const started = async () => {
      // Runs past their timeout are taken up within about a second; schedules are looked at every second.
      const made = new PgBossJobs({
        connectionString: url!,
        maintenanceIntervalSeconds: 1,
        scheduleCheckSeconds: { schedules: 1, sends: 1 },
      });
      await made.start();
      return made;
    };
    const close = async () => {
      for (const other of others.splice(0)) await other.stop();
      await engine?.stop();
      engine = undefined;
    };
    after(async () => {
      await close();
      await database?.close();
    });

    jobsContract(
      'PgBossJobs on PostgreSQL',
      async () => {
        const opened = await open();
        if (!opened) return 'PostgreSQL needs SVC_TEST_POSTGRES_URL';
        const { jobs, db } = opened;
        return {
          queue: jobs,
          admin: jobs,
          transactions: new SqlTransactions(db),
          runner: (options) => jobs.runner(options),
          pollIntervalMs: 500,
          schedulers: async (count) => {
            const engines = [jobs];
            while (engines.length < count) {
              const other = await started();
              others.push(other);
              engines.push(other);
            }
            return engines.map((each) => each.scheduler());
          },
          realTimeSchedules: true,
        };
      },
      close,
    );

    describe('PgBossJobs on PostgreSQL, beyond the contract', function () {
      this.timeout(30_000);
      let jobs: PgBossJobs;
      const runners: JobRunner[] = [];
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const view = async (id: string) => (await jobs.list({ page: 1, perPage: 100 })).items.find((j) => j.id === id);
      const until = async (check: () => Promise<boolean>, ms = 10_000) => {
        const end = Date.now() + ms;
        while (!(await check())) {
          if (Date.now() > end) throw new Error('the condition did not hold in time');
          await sleep(20);
        }
      };
      beforeEach(async function () {
        const opened = await open();
        if (!opened) this.skip();
        jobs = opened!.jobs;
      });
      afterEach(async () => {
        for (const runner of runners.splice(0)) await runner.stop(0);
        await close();
      });

      it('makes new queues from two instances at once without a deadlock: every job is stored', async () => {
        // pg-boss's create_queue from two sessions at once deadlocks; fresh names each run, removed after.
        const names = Array.from({ length: 6 }, (_, n) => `test.new-${randomUUID().slice(0, 8)}-${n}`);
        const other = await started();
        others.push(other);
        try {
          const sent = await Promise.all(
            names.flatMap((name) => [jobs, other].map((engine) => engine.enqueue({ name, payload: {} }))),
          );
          expect(sent.every((id) => typeof id === 'string')).to.equal(true);
          for (const name of names) expect((await jobs.list({ name, page: 1, perPage: 10 })).total).to.equal(2);
        } finally {
          for (const name of names) {
            await database!.sql.run('delete from pgboss.job where name = ?', [name]);
            await database!.sql.run(`select pgboss.delete_queue(?)`, [name]);
          }
        }
      });

      it('waits exactly the retry delay, under a second or capped, which pg-boss alone cannot', async () => {
        // Keyed: pg-boss's fail deletes and re-inserts the row in one statement, which the key index allows.
        const id = (await jobs.enqueue({ name: 'test.exact', payload: {}, key: 'exact' }))!;
        const thrown: number[] = [];
        const runner = jobs.runner({ retry: { limit: 2, firstDelayMs: 700, maxDelayMs: 1000 } });
        runners.push(runner);
        await runner.start(
          new Map([
            [
              'test.exact',
              async () => {
                thrown.push(Date.now());
                throw new Error('down');
              },
            ],
          ]),
        );
        const runAts: number[] = [];
        for (const attempts of [1, 2]) {
          // One reading per look: two could see the state of one run and the attempts of the next.
          let seen: Awaited<ReturnType<typeof view>>;
          await until(async () => {
            seen = await view(id);
            return seen?.state === 'retry' && seen.attempts === attempts;
          });
          runAts.push(seen!.runAt.getTime());
        }
        // 700 ms, then 1400 ms capped at 1000 ms, from the end of the run.
        expect(runAts[0]! - thrown[0]!).to.be.within(700, 900);
        expect(runAts[1]! - thrown[1]!).to.be.within(1000, 1200);
        await until(async () => (await view(id))?.state === 'failed');
        expect(await view(id)).to.include({ attempts: 3, lastError: 'down' });
      });

      it('ignores the late end of a run that timed out: the run that took the job up again decides', async () => {
        const id = (await jobs.enqueue({ name: 'test.slow', payload: {} }))!;
        const outcomes: [number, JobOutcome][] = [];
        let firstEnded = false;
        const runner = jobs.runner({
          timeoutMs: 1000,
          concurrency: 2,
          retry: { limit: 3, firstDelayMs: 60_000, maxDelayMs: 60_000 },
        });
        runners.push(runner);
        await runner.start(
          new Map([
            [
              'test.slow',
              async (_payload, running) => {
                if (running.attempt === 1) {
                  // Ends well past its timeout, once the second run took the job up and failed.
                  await until(async () => outcomes.length > 0);
                  firstEnded = true;
                  return;
                }
                throw new Error('second run failed');
              },
            ],
          ]),
          ({ job, outcome }) => outcomes.push([job.attempt, outcome]),
        );
        await until(async () => firstEnded);
        await sleep(300);
        expect(outcomes).to.deep.equal([[2, 'retried']]);
        expect(await view(id)).to.include({ state: 'retry', attempts: 2, lastError: 'second run failed' });
      });

      it('keeps one unfinished job per key in a queue created after the key index, and in a rolled-back transaction none', async () => {
        const name = `test.fresh-${Date.now()}`;
        try {
          expect(await jobs.enqueue({ name, payload: {}, key: 'k' })).to.be.a('string');
          expect(await jobs.enqueue({ name, payload: {}, key: 'k' })).to.equal(undefined);
          const transactions = new SqlTransactions(database!);
          const inner = await transactions.run((tx) => jobs.enqueue({ name, payload: {}, key: 'other' }, tx));
          expect(inner).to.be.a('string');
          await transactions
            .run(async (tx) => {
              expect(await jobs.enqueue({ name, payload: {}, key: 'k' }, tx)).to.equal(undefined);
              expect(await jobs.enqueue({ name, payload: {}, key: 'third' }, tx)).to.be.a('string');
              throw new Error('rolled back');
            })
            .catch(() => undefined);
          expect((await jobs.list({ name, page: 1, perPage: 10 })).total).to.equal(2);
        } finally {
          await database!.sql.run(`delete from pgboss.job where name = '${name}'`);
          await database!.sql.run(`select pgboss.delete_queue('${name}')`);
        }
      });
    });
  });
});
