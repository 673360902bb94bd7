import type { HealthStatus } from '../../domain/health/Health.js';

/** What a check reports about its dependency; latency is measured by the caller. */
export interface CheckOutcome {
  readonly status: HealthStatus;
  readonly message?: string;
}

/**
 * One dependency probe (database, cache, HTTP endpoint, disk, event loop...).
 * Promises: resolves with the dependency's status, or rejects when it failed; either way the
 * message must be safe to publish (no credentials, SQL or paths). It should stop work when
 * `signal` aborts — the caller has already given up and reported `timeout`.
 */
export interface HealthCheck {
  readonly name: string;
  check(signal: AbortSignal): Promise<CheckOutcome>;
}
