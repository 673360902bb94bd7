import { ConflictError, NotFoundError } from '../../domain/shared/DomainError.js';
import type { JobAdmin } from '../ports/Jobs.js';

/** A failed job runs again, its attempts starting over; a job in any other state is a conflict. */
export class RetryJob {
  constructor(private readonly jobs: JobAdmin) {}

  async execute(input: { readonly id: string }): Promise<void> {
    const outcome = await this.jobs.retry(input.id);
    if (outcome === 'not-found') throw new NotFoundError('Job', input.id);
    if (outcome === 'conflict') throw new ConflictError('only a failed job can be retried', `id: ${input.id}`);
  }
}
