import type { JobQueue, NewJob, Transaction } from '../../../application/ports/Jobs.js';
import { afterCommit } from '../afterCommit.js';

/**
 * A JobQueue that tells `enqueued` of each job stored, once it is: at once for a job enqueued
 * alone, when the transaction commits for one enqueued within it (a transaction that rolls back
 * stored nothing, and counts nothing).
 */
export class CountedJobs implements JobQueue {
  constructor(
    private readonly queue: JobQueue,
    private readonly enqueued: (name: string) => void,
  ) {}

  async enqueue(job: NewJob, within?: Transaction): Promise<string | undefined> {
    const id = await this.queue.enqueue(job, within);
    if (id !== undefined) await afterCommit(within, () => this.enqueued(job.name));
    return id;
  }
}
