/** How jobs are retried (docs/jobs.md): the settings every engine applies alike. */
export interface RetryPolicy {
  /** Retries after the first run; then the job is failed. */
  readonly limit: number;
  /** The first retry's delay; each next one doubles it. */
  readonly firstDelayMs: number;
  /** No retry waits longer. */
  readonly maxDelayMs: number;
}

/** `jobs.retry_limit` 8, 1 s doubling, `jobs.retry_max_delay` 10 minutes. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { limit: 8, firstDelayMs: 1000, maxDelayMs: 600_000 };

/**
 * The wait before retry number `retry` (1 for the first): 1 s, 2 s, 4 s … doubling, at most the cap;
 * `undefined` once the limit is spent (the job is failed).
 */
export function retryDelayMs(policy: RetryPolicy, retry: number): number | undefined {
  if (retry > policy.limit) return undefined;
  return Math.min(policy.firstDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
}
