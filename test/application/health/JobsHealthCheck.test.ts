import { expect } from 'chai';
import { InMemoryJobs } from '../../../src/adapters/outbound/memory/InMemoryJobs.js';
import { JobsHealthCheck } from '../../../src/application/health/JobsHealthCheck.js';
import { FixedClock } from '../../support/FixedClock.js';

const MINUTE = 60_000;

describe('JobsHealthCheck (the jobs check of /health)', () => {
  const start = new Date('2026-03-01T12:00:00.000Z');
  let clock: FixedClock;
  let jobs: InMemoryJobs;
  let check: JobsHealthCheck;
  beforeEach(() => {
    clock = new FixedClock(start);
    jobs = new InMemoryJobs(() => clock.now());
    check = new JobsHealthCheck(jobs, clock, 5 * MINUTE);
  });

  it('is up with no jobs, and with a job waiting no longer than jobs.max_lag', async () => {
    expect(await check.check()).to.deep.equal({ status: 'up' });
    await jobs.enqueue({ name: 'mail.send', payload: {} });
    clock.advance(5 * MINUTE);
    expect(await check.check()).to.deep.equal({ status: 'up' });
  });

  it('is degraded once the oldest waiting job waited longer than jobs.max_lag (a job not yet due does not count)', async () => {
    await jobs.enqueue({ name: 'mail.send', payload: {} });
    await jobs.enqueue({ name: 'later', payload: {}, runAt: new Date(start.getTime() + 60 * MINUTE) });
    clock.advance(5 * MINUTE + 1000);
    expect(await check.check()).to.deep.equal({
      status: 'degraded',
      message: 'the oldest waiting job has waited 301 s',
    });
  });

  it('is degraded while a job failed for good within the last hour, and up again after it', async () => {
    await jobs.enqueue({ name: 'broken', payload: {} });
    const runs = await jobs.runDue(
      {
        broken: async () => {
          throw new Error('no');
        },
      },
      { limit: 0, firstDelayMs: 1000, maxDelayMs: 1000 },
    );
    expect(runs.map((run) => run.outcome)).to.deep.equal(['failed']);
    expect(await check.check()).to.deep.equal({ status: 'degraded', message: '1 job(s) failed in the last hour' });
    clock.advance(61 * MINUTE);
    expect(await check.check()).to.deep.equal({ status: 'up' });
  });
});
