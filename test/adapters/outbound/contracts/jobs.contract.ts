import { expect } from 'chai';
import { afterCommit } from '../../../../src/adapters/outbound/afterCommit.js';
import type { JobRunnerOptions } from '../../../../src/application/jobs/runnerOptions.js';
import type {
  JobAdmin,
  JobHandler,
  JobPayload,
  JobQueue,
  JobRunner,
  JobScheduler,
  JobView,
  RunningJob,
  Transactions,
} from '../../../../src/application/ports/Jobs.js';

/** One engine's jobs, as the contract drives them. */
export interface JobsSubject {
  readonly queue: JobQueue;
  readonly admin: JobAdmin;
  readonly transactions: Transactions;
  /** A new runner over the same store (another instance of the service). */
  runner(options?: Partial<JobRunnerOptions>): JobRunner;
  /** The fastest this engine polls (pg-boss: half a second). */
  readonly pollIntervalMs: number;
  /**
   * `count` schedulers over the same store, as that many instances run them. Engines that fire by
   * their own clock read `now`; pg-boss fires by the real time (`realTimeSchedules`).
   */
  schedulers(count: number, now: () => Date): Promise<JobScheduler[]>;
  readonly realTimeSchedules?: boolean;
}

/** Every engine's promise about jobs (docs/jobs.md); `open` answers a fresh, empty store, or why the suite is skipped. */
export function jobsContract(
  title: string,
  open: () => Promise<JobsSubject | string>,
  close: () => Promise<void> = async () => undefined,
): void {
  describe(`jobs contract: ${title}`, function () {
    this.timeout(30_000);
    let subject: JobsSubject;
    const runners: JobRunner[] = [];
    const schedulers: JobScheduler[] = [];
    const runner = (options: Partial<JobRunnerOptions> = {}) => {
      const made = subject.runner({ pollIntervalMs: subject.pollIntervalMs, ...options });
      runners.push(made);
      return made;
    };
    const handlers = (entries: Record<string, JobHandler>) => new Map(Object.entries(entries));
    const job = async (id: string): Promise<JobView | undefined> =>
      (await subject.admin.list({ page: 1, perPage: 1000 })).items.find((j) => j.id === id);
    /** Resolves once `check` holds, polling; fails after `ms`. */
    const eventually = async (check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> => {
      const until = Date.now() + ms;
      while (!(await check())) {
        if (Date.now() > until) throw new Error('the condition did not hold in time');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    beforeEach(async function () {
      const opened = await open();
      if (typeof opened === 'string') this.skip();
      subject = opened as JobsSubject;
    });
    afterEach(async () => {
      for (const r of runners.splice(0)) await r.stop(0);
      for (const s of schedulers.splice(0)) await s.stop();
      await close();
    });

    it('runs an enqueued job once with its payload, then shows it completed (attempts 1, no payload)', async () => {
      const seen: [JobPayload, RunningJob][] = [];
      const id = await subject.queue.enqueue({ name: 'test.echo', payload: { to: 'ada@example.com', n: 1 } });
      expect(id).to.be.a('string');
      await runner().start(handlers({ 'test.echo': async (payload, running) => void seen.push([payload, running]) }));
      await eventually(async () => (await job(id!))?.state === 'completed');
      expect(seen).to.deep.equal([
        [
          { to: 'ada@example.com', n: 1 },
          { id, name: 'test.echo', attempt: 1 },
        ],
      ]);
      const view = (await job(id!))!;
      expect(view).to.include({ name: 'test.echo', state: 'completed', attempts: 1, lastError: null });
      expect(view.finishedAt).to.be.instanceOf(Date);
      expect(view).not.to.have.property('payload');
    });

    it('makes a second enqueue of an unfinished key a no-op, and takes the key again once it finished', async () => {
      const first = await subject.queue.enqueue({ name: 'test.keyed', payload: {}, key: 'k1' });
      expect(await subject.queue.enqueue({ name: 'test.keyed', payload: {}, key: 'k1' })).to.equal(undefined);
      expect(await subject.queue.enqueue({ name: 'test.keyed', payload: {}, key: 'k2' })).to.be.a('string');
      await runner().start(handlers({ 'test.keyed': async () => undefined }));
      await eventually(async () => (await job(first!))?.state === 'completed');
      expect(await subject.queue.enqueue({ name: 'test.keyed', payload: {}, key: 'k1' })).to.be.a('string');
    });

    it('does not run a job before its run_at', async () => {
      const ran: number[] = [];
      const at = Date.now() + 1500;
      const id = await subject.queue.enqueue({ name: 'test.later', payload: {}, runAt: new Date(at) });
      expect((await job(id!))?.state).to.equal('waiting');
      await runner().start(handlers({ 'test.later': async () => void ran.push(Date.now()) }));
      await eventually(() => ran.length === 1);
      expect(ran[0]).to.be.at.least(at);
    });

    it('retries a failing job after 1 s, then 2 s, showing attempts, the last error and the next run', async () => {
      const runs: number[] = [];
      const id = await subject.queue.enqueue({ name: 'test.flaky', payload: {} });
      await runner().start(
        handlers({
          'test.flaky': async () => {
            runs.push(Date.now());
            if (runs.length < 3) throw new Error(`smtp down (${runs.length})`);
          },
        }),
      );
      await eventually(async () => (await job(id!))?.state === 'retry');
      const waiting = (await job(id!))!;
      expect(waiting).to.include({ attempts: 1, lastError: 'smtp down (1)' });
      expect(waiting.runAt.getTime()).to.be.within(runs[0]! + 900, runs[0]! + 2100);
      await eventually(async () => (await job(id!))?.state === 'completed');
      expect(runs).to.have.length(3);
      expect(runs[1]! - runs[0]!).to.be.at.least(950);
      expect(runs[2]! - runs[1]!).to.be.at.least(1950);
      expect((await job(id!))!).to.include({ attempts: 3 });
    });

    it('fails a job after the retry limit and keeps it; an admin retries it (202) or removes it (204); 409 and 404 otherwise', async () => {
      const id = await subject.queue.enqueue({ name: 'test.broken', payload: {} });
      let calls = 0;
      let healed = false;
      const r = runner({ retry: { limit: 1, firstDelayMs: 1000, maxDelayMs: 1000 } });
      await r.start(
        handlers({
          'test.broken': async () => {
            calls += 1;
            if (!healed) throw new Error('still broken');
          },
        }),
      );
      await eventually(async () => (await job(id!))?.state === 'failed');
      expect(calls).to.equal(2);
      expect((await job(id!))!).to.include({ attempts: 2, lastError: 'still broken' });
      expect((await subject.admin.stats(new Date())).failedLastHour).to.be.at.least(1);
      healed = true;
      expect(await subject.admin.retry(id!)).to.equal('retried');
      await eventually(async () => (await job(id!))?.state === 'completed');
      expect(await subject.admin.retry(id!)).to.equal('conflict');
      expect(await subject.admin.remove(id!)).to.equal('conflict');
      expect(await subject.admin.retry('00000000-0000-4000-8000-000000000000')).to.equal('not-found');
      expect(await subject.admin.remove('00000000-0000-4000-8000-000000000000')).to.equal('not-found');
      const waiting = await subject.queue.enqueue({ name: 'test.unrun', payload: {} });
      expect(await subject.admin.remove(waiting!)).to.equal('removed');
      expect(await job(waiting!)).to.equal(undefined);
    });

    it("keeps no e-mail address or secret of a failure's message in last_error, whatever threw it", async () => {
      const id = await subject.queue.enqueue({ name: 'test.leaky', payload: { to: 'ada@example.com' } });
      const token = 'aaaaBBBBccccDDDDeeeeFF.q3Vt0tJk1c5h2m7Zk8yW-Pp4aL0x9Qf3Rr6Ss1Tt2Uu';
      await runner({ retry: { limit: 0, firstDelayMs: 1000, maxDelayMs: 1000 } }).start(
        handlers({
          'test.leaky': async () => {
            throw new Error(`550 <ada@example.com>: Recipient address rejected (link ${token})`);
          },
        }),
      );
      await eventually(async () => (await job(id!))?.state === 'failed');
      const { lastError } = (await job(id!))!;
      expect(lastError).to.match(
        /^550 <<address>>: Recipient address rejected \(link aaaaBBBBccccDDDDeeeeFF\.<redacted>\)$/,
      );
      expect(JSON.stringify(await subject.admin.list({ name: 'test.leaky', page: 1, perPage: 10 }))).to.not.match(
        /ada@example\.com|q3Vt0tJk/,
      );
    });

    it('lists newest first (oldest first when asked), filtered by state and name, and counts waiting jobs by name', async () => {
      const ids: string[] = [];
      for (const name of ['test.a', 'test.b', 'test.a']) {
        ids.push((await subject.queue.enqueue({ name, payload: {} }))!);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const all = await subject.admin.list({ page: 1, perPage: 2 });
      expect(all.total).to.equal(3);
      expect(all.items.map((j) => j.id)).to.deep.equal([ids[2], ids[1]]);
      const oldest = await subject.admin.list({ page: 2, perPage: 2, order: 'asc' });
      expect(oldest.items.map((j) => j.id)).to.deep.equal([ids[2]]);
      const a = await subject.admin.list({ name: 'test.a', state: 'waiting', page: 1, perPage: 10 });
      expect(a.items.map((j) => j.id)).to.deep.equal([ids[2], ids[0]]);
      const stats = await subject.admin.stats(new Date(Date.now() + 2000));
      expect(stats.waiting).to.deep.include({ 'test.a': 2, 'test.b': 1 });
      expect(stats.oldestWaitingSeconds).to.be.at.least(1);
    });

    it('runs each of 40 jobs exactly once, never twice at the same time, with 4 runners taking them at once', async () => {
      const ids = new Set<string>();
      for (let n = 0; n < 40; n += 1) ids.add((await subject.queue.enqueue({ name: 'test.once', payload: { n } }))!);
      const runs = new Map<string, number>();
      let overlap = false;
      const active = new Set<string>();
      const handler: JobHandler = async (_payload, running) => {
        if (active.has(running.id)) overlap = true;
        active.add(running.id);
        runs.set(running.id, (runs.get(running.id) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
        active.delete(running.id);
      };
      for (let n = 0; n < 4; n += 1) await runner({ concurrency: 4 }).start(handlers({ 'test.once': handler }));
      await eventually(() => runs.size === 40, 20_000);
      await new Promise((resolve) => setTimeout(resolve, subject.pollIntervalMs * 2));
      expect([...runs.keys()].sort()).to.deep.equal([...ids].sort());
      expect([...runs.values()].every((n) => n === 1)).to.equal(true);
      expect(overlap).to.equal(false);
    });

    it('takes a job up again once its runner died and its timeout passed', async () => {
      const attempts: number[] = [];
      const id = await subject.queue.enqueue({ name: 'test.stuck', payload: {} });
      const hanging = runner({ timeoutMs: 1000 });
      await hanging.start(
        handlers({
          'test.stuck': (_p, running) => (attempts.push(running.attempt), new Promise<void>(() => undefined)),
        }),
      );
      await eventually(() => attempts.length === 1);
      await hanging.stop(0); // its process is gone: the run never ends
      await runner({ timeoutMs: 1000 }).start(
        handlers({ 'test.stuck': async (_p, running) => void attempts.push(running.attempt) }),
      );
      await eventually(async () => (await job(id!))?.state === 'completed', 20_000);
      expect(attempts).to.deep.equal([1, 2]);
    });

    it('fires a schedule once per period with two instances running schedulers, and again the next period', async function () {
      const ticks = async () => (await subject.admin.list({ name: 'test.tick', page: 1, perPage: 100 })).items;
      const every = new Map([['test.tick', '* * * * *']]);
      if (subject.realTimeSchedules) {
        // Real time: each period is a minute. The current minute fires at once; the next at its start.
        this.timeout(150_000);
        const started = await subject.schedulers(2, () => new Date());
        schedulers.push(...started);
        for (const scheduler of started) await scheduler.start(every);
        const firstMinute = Math.floor(Date.now() / 60_000);
        await eventually(async () => (await ticks()).length >= 1, 20_000);
        if (Math.floor(Date.now() / 60_000) === firstMinute) {
          await new Promise((resolve) => setTimeout(resolve, 3000));
          if (Math.floor(Date.now() / 60_000) === firstMinute) expect(await ticks()).to.have.length(1);
        }
        const secondMinute = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
        await new Promise((resolve) => setTimeout(resolve, secondMinute - Date.now() + 8000));
        const fired = await ticks();
        expect(fired.length).to.be.within(2, 3);
        // One per minute: never two created in the same minute.
        const minutes = fired.map((tick) => Math.floor(tick.createdAt.getTime() / 60_000));
        expect(new Set(minutes).size).to.equal(minutes.length);
        expect(fired.every((tick) => tick.state === 'waiting')).to.equal(true);
        return;
      }
      let now = new Date('2026-01-01T10:00:20.000Z');
      const started = await subject.schedulers(2, () => now);
      schedulers.push(...started);
      for (const scheduler of started) await scheduler.start(every);
      for (const scheduler of started) await scheduler.start(every);
      expect(await ticks()).to.have.length(1);
      now = new Date('2026-01-01T10:00:59.999Z');
      for (const scheduler of started) await scheduler.start(every);
      expect(await ticks()).to.have.length(1);
      now = new Date('2026-01-01T10:01:00.000Z');
      for (const scheduler of started) await scheduler.start(every);
      expect(await ticks()).to.have.length(2);
      // No instance ran from 10:02:00 to 10:03:00: that period is skipped, not fired late.
      now = new Date('2026-01-01T10:03:00.000Z');
      await started[0]!.start(new Map([['test.tick', '2 10 * * *']]));
      expect(await ticks()).to.have.length(2);
      // A schedule the configuration no longer has does not fire.
      now = new Date('2026-01-01T10:04:00.000Z');
      await started[0]!.start(new Map());
      expect(await ticks()).to.have.length(2);
      const [newest] = await ticks();
      expect(newest).to.include({ name: 'test.tick', state: 'waiting', attempts: 0 });
    });

    it('refuses to retry a failed keyed job while another unfinished job holds its key (409), and retries it once that one finished', async () => {
      const failing = runner({ retry: { limit: 0, firstDelayMs: 1000, maxDelayMs: 1000 } });
      let fail = true;
      await failing.start(
        handlers({
          'test.keyed': async () => {
            if (fail) throw new Error('down');
          },
        }),
      );
      const first = (await subject.queue.enqueue({ name: 'test.keyed', payload: {}, key: 'k' }))!;
      await eventually(async () => (await job(first))?.state === 'failed');
      await failing.stop(1000);
      // The key is free again once the first failed: a second job takes it, and waits (no runner).
      const second = (await subject.queue.enqueue({ name: 'test.keyed', payload: {}, key: 'k' }))!;
      expect(second).to.be.a('string');
      expect(await subject.admin.retry(first)).to.equal('conflict');
      expect((await job(first))?.state).to.equal('failed');
      expect(await subject.admin.remove(second)).to.equal('removed');
      expect(await subject.admin.retry(first)).to.equal('retried');
      fail = false;
    });

    it('runs what an adapter asked to run after the commit once it committed, and never after a rollback', async () => {
      const told: string[] = [];
      await subject.transactions.run(async (tx) => {
        await afterCommit(tx, () => void told.push('committed'));
        expect(told).to.deep.equal([]);
      });
      expect(told).to.deep.equal(['committed']);
      await subject.transactions
        .run(async (tx) => {
          await afterCommit(tx, () => void told.push('rolled back'));
          throw new Error('the write failed');
        })
        .catch(() => undefined);
      expect(told).to.deep.equal(['committed']);
      await afterCommit(undefined, () => void told.push('no transaction'));
      expect(told).to.deep.equal(['committed', 'no transaction']);
    });

    it('stores a job enqueued in a transaction only if it commits', async () => {
      const failed = subject.transactions.run(async (tx) => {
        await subject.queue.enqueue({ name: 'test.tx', payload: { v: 'rolled back' } }, tx);
        throw new Error('the write failed');
      });
      await failed.then(
        () => expect.fail('should reject'),
        (error: Error) => expect(error.message).to.equal('the write failed'),
      );
      expect((await subject.admin.list({ name: 'test.tx', page: 1, perPage: 10 })).total).to.equal(0);
      const id = await subject.transactions.run((tx) =>
        subject.queue.enqueue({ name: 'test.tx', payload: { v: 'committed' } }, tx),
      );
      expect((await job(id!))?.state).to.equal('waiting');
    });
  });
}
