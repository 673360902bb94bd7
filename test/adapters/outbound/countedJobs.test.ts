import { expect } from 'chai';
import { CountedJobs } from '../../../src/adapters/outbound/jobs/CountedJobs.js';
import { InMemoryJobs } from '../../../src/adapters/outbound/memory/InMemoryJobs.js';

describe('CountedJobs (jobs_enqueued_total)', () => {
  let counted: string[];
  let jobs: CountedJobs;
  let store: InMemoryJobs;
  beforeEach(() => {
    counted = [];
    store = new InMemoryJobs();
    jobs = new CountedJobs(store, (name) => counted.push(name));
  });

  it('counts a job enqueued alone at once, and a keyed enqueue that stored nothing not at all', async () => {
    await jobs.enqueue({ name: 'a', payload: {}, key: 'k' });
    await jobs.enqueue({ name: 'a', payload: {}, key: 'k' });
    expect(counted).to.deep.equal(['a']);
  });

  it('counts the jobs of a transaction once it committed, not before', async () => {
    await store.run(async (tx) => {
      await jobs.enqueue({ name: 'b', payload: {} }, tx);
      await jobs.enqueue({ name: 'c', payload: {} }, tx);
      expect(counted).to.deep.equal([]);
    });
    expect(counted).to.deep.equal(['b', 'c']);
  });

  it('counts nothing of a transaction that rolled back', async () => {
    const failed = store.run(async (tx) => {
      await jobs.enqueue({ name: 'd', payload: {} }, tx);
      throw new Error('the write failed');
    });
    await failed.then(
      () => expect.fail('should reject'),
      (error: Error) => expect(error.message).to.equal('the write failed'),
    );
    expect(counted).to.deep.equal([]);
  });
});
