import type { HealthCheck } from '../ports/HealthCheck.js';

/** Which probes a check belongs to. */
export type CheckScope = 'both' | 'readiness' | 'liveness';

/** Which report is asked for: every registered check, or one probe's. */
export type Probe = 'all' | 'readiness' | 'liveness';

/** The set of checks the service runs, each registered for both probes or for one of them. */
export class HealthCheckRegistry {
  private readonly entries: { check: HealthCheck; scope: CheckScope }[] = [];

  /** Adds a check; names are unique within the registry. */
  register(check: HealthCheck, scope: CheckScope = 'both'): this {
    if (this.entries.some((e) => e.check.name === check.name)) {
      throw new Error(`health check "${check.name}" is already registered`);
    }
    this.entries.push({ check, scope });
    return this;
  }

  /** The checks that belong to a probe, in registration order. */
  checksFor(probe: Probe): HealthCheck[] {
    return this.entries
      .filter((e) => probe === 'all' || e.scope === 'both' || e.scope === probe)
      .map((e) => e.check);
  }
}
