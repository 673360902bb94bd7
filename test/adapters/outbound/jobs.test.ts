import { InMemoryJobs } from '../../../src/adapters/outbound/memory/InMemoryJobs.js';
import { jobsContract } from './contracts/jobs.contract.js';

describe('Jobs on every engine', () => {
  jobsContract('in memory', async () => {
    const jobs = new InMemoryJobs();
    return {
      queue: jobs,
      admin: jobs,
      transactions: jobs,
      runner: (options) => jobs.runner(options),
      pollIntervalMs: 20,
    };
  });
});
