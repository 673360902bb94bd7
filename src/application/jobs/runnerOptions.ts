import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retryDelay.js';

/** How a runner takes and runs jobs (docs/jobs.md: `jobs.*`). */
export interface JobRunnerOptions {
  /** Jobs run at once by this runner (`jobs.concurrency`). */
  readonly concurrency: number;
  /** A run older than this is taken up again, as if its runner died (`jobs.timeout`). */
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  /** How often an idle runner looks for due jobs. */
  readonly pollIntervalMs: number;
}

export const DEFAULT_RUNNER_OPTIONS: JobRunnerOptions = {
  concurrency: 4,
  timeoutMs: 300_000,
  retry: DEFAULT_RETRY_POLICY,
  pollIntervalMs: 250,
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** How long finished jobs are kept by default: completed ones a day, failed ones `jobs.retention` (14 days). */
export const DEFAULT_RETENTION = { completedMs: DAY_MS, failedMs: 14 * DAY_MS } as const;
