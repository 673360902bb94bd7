import type { Page, SortOrder } from '../../domain/shared/Page.js';
import type { JobAdmin, JobState, JobView } from '../ports/Jobs.js';

/** A page of the admin's job list. */
export interface ListJobsQuery {
  readonly page: number;
  readonly perPage: number;
  readonly order: SortOrder;
  readonly state?: JobState;
  readonly name?: string;
}

/** The stored jobs, newest first by default, filtered by state and name — never their payloads. */
export class ListJobs {
  constructor(private readonly jobs: JobAdmin) {}

  async execute(query: ListJobsQuery): Promise<Page<JobView>> {
    const found = await this.jobs.list(query);
    return { items: found.items, total: found.total, page: query.page, perPage: query.perPage };
  }
}
