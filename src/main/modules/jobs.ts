import { ContainerModule } from 'inversify';
import { JOB_OPERATIONS, jobRoutes, type JobUseCases } from '../../adapters/inbound/http/routes/jobs.js';
import { ListJobs } from '../../application/jobs/ListJobs.js';
import { RemoveJob } from '../../application/jobs/RemoveJob.js';
import { RetryJob } from '../../application/jobs/RetryJob.js';
import { token, TOKENS } from '../wiring/tokens.js';
import { bindBuilt, built } from './built.js';
import type { FeatureModule } from './FeatureModule.js';

export const JobTokens = {
  UseCases: token<JobUseCases>('jobs.UseCases'),
} as const;

/**
 * Background jobs (docs/jobs.md): the admin API over the stored jobs (`/api/v1/admin/jobs`, always
 * served), and the `jobs` table of the SQLite engine (on PostgreSQL its migration does nothing:
 * pg-boss owns its schema there). The engine itself is opened at start-up (src/main/infrastructure/jobs.ts).
 */
export const jobs: FeatureModule = {
  name: 'jobs',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(JobTokens.UseCases),
      built(
        { authenticate: TOKENS.Authenticate, policy: TOKENS.AccessPolicy, admin: TOKENS.JobAdmin },
        ({ authenticate, policy, admin }): JobUseCases => ({
          authenticate,
          policy,
          listJobs: new ListJobs(admin),
          retryJob: new RetryJob(admin),
          removeJob: new RemoveJob(admin),
        }),
      ),
    );
  }),
  rest: {
    always: true,
    operations: Object.values(JOB_OPERATIONS),
    routes: built({ uses: JobTokens.UseCases }, ({ uses }) => jobRoutes(uses)),
  },
};
