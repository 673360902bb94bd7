import type { HealthCheck } from '../ports/HealthCheck.js';

/** Which probes a check belongs to (`report`: neither, only the full report of `/health`). */
export type CheckScope = 'both' | 'readiness' | 'liveness' | 'report';

/** Which report is asked for: every registered check, or one probe's. */
export type Probe = 'all' | 'readiness' | 'liveness';

export interface CheckOptions {
  /** The service cannot do its work while this check is `down`: the report is then `down` (503). */
  readonly critical?: boolean;
}

/** A registered check: the check, its probes and its criticality. */
export interface RegisteredCheck {
  readonly check: HealthCheck;
  readonly scope: CheckScope;
  readonly critical: boolean;
}

/**
 * The set of checks the service runs, each registered for both probes or for one of them, and
 * critical or not (not, unless said).
 */
export class HealthCheckRegistry {
  private readonly entries: RegisteredCheck[] = [];

  /** Adds a check; names are unique within the registry. */
  register(check: HealthCheck, scope: CheckScope = 'both', options: CheckOptions = {}): this {
    if (this.entries.some((e) => e.check.name === check.name)) {
      throw new Error(`health check "${check.name}" is already registered`);
    }
    this.entries.push({ check, scope, critical: options.critical ?? false });
    return this;
  }

  /** The checks that belong to a probe, in registration order. */
  checksFor(probe: Probe): HealthCheck[] {
    return this.entriesFor(probe).map((e) => e.check);
  }

  /** The registrations that belong to a probe, in registration order. */
  entriesFor(probe: Probe): RegisteredCheck[] {
    return this.entries.filter((e) => probe === 'all' || e.scope === 'both' || e.scope === probe);
  }
}
