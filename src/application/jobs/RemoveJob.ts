import { ConflictError, NotFoundError } from '../../domain/shared/DomainError.js';
import type { JobAdmin } from '../ports/Jobs.js';

/** A waiting, retry or failed job is removed for good; a running (or completed) one is a conflict. */
export class RemoveJob {
  constructor(private readonly jobs: JobAdmin) {}

  async execute(input: { readonly id: string }): Promise<void> {
    const outcome = await this.jobs.remove(input.id);
    if (outcome === 'not-found') throw new NotFoundError('Job', input.id);
    if (outcome === 'conflict')
      throw new ConflictError('a running or completed job cannot be removed', `id: ${input.id}`);
  }
}
