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

/** One check's status and whether the service can work without it. */
export interface WeighedStatus {
  readonly status: HealthStatus;
  /** A critical check that is `down` makes the whole report `down`. */
  readonly critical: boolean;
}

/**
 * The aggregation rule with criticality: any critical check `down` → `down` (the service cannot
 * do its work); otherwise `aggregate` of the statuses, so a non-critical check that is `down`
 * beside others makes the report `degraded`.
 */
export function aggregateWeighed(checks: readonly WeighedStatus[]): HealthStatus {
  if (checks.some((c) => c.critical && c.status === 'down')) return 'down';
  return aggregate(checks.map((c) => c.status));
}
