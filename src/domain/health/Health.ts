/** Health of one check or of a whole report. */
export type HealthStatus = 'up' | 'down' | 'degraded';

/** What one check found, with how long it took to find it. */
export interface CheckResult {
  readonly status: HealthStatus;
  /** Omitted when there is nothing to say. */
  readonly message?: string;
  /** Milliseconds the check took. */
  readonly latencyMs: number;
}

/** The aggregate of a set of checks at one moment. */
export interface HealthReport {
  readonly status: HealthStatus;
  readonly timestamp: Date;
  /** Milliseconds since the service started. */
  readonly uptimeMs: number;
  readonly checks: Readonly<Record<string, CheckResult>>;
}

/**
 * The aggregation rule: no checks or all `up` → `up`; all `down` → `down`;
 * any other mix (some `degraded`, or `up` beside `down`) → `degraded`.
 */
export function aggregate(statuses: readonly HealthStatus[]): HealthStatus {
  if (statuses.every((s) => s === 'up')) return 'up';
  if (statuses.every((s) => s === 'down')) return 'down';
  return 'degraded';
}
