import type { JobQueue, NewJob, Transaction, Transactions } from '../../../application/ports/Jobs.js';

/**
 * A JobQueue and its Transactions that tell `enqueued` of each job stored, once it is: at once for
 * a job enqueued alone, when the transaction commits for one enqueued within it (a transaction
 * that rolls back stored nothing, and counts nothing).
 */
export class CountedJobs implements JobQueue, Transactions {
  private readonly pending = new WeakMap<Transaction, string[]>();

  constructor(
    private readonly queue: JobQueue,
    private readonly transactions: Transactions,
    private readonly enqueued: (name: string) => void,
  ) {}

  async enqueue(job: NewJob, within?: Transaction): Promise<string | undefined> {
    const id = await this.queue.enqueue(job, within);
    if (id === undefined) return id;
    const names = within && this.pending.get(within);
    if (names) names.push(job.name);
    else this.enqueued(job.name);
    return id;
  }

  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const names: string[] = [];
    const result = await this.transactions.run((tx) => {
      this.pending.set(tx, names);
      return work(tx);
    });
    for (const name of names) this.enqueued(name);
    return result;
  }
}
