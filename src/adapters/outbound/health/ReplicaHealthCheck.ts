import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/** What the check needs of the read routing: what its last probe found of each replica. */
export interface ReplicaStates {
  readonly state: readonly { readonly up: boolean; readonly lagMs: number }[];
}

/**
 * `replica` (with `database.replica_urls`): `up` while every replica answers its probe and is no
 * further behind than `database.replica_max_lag`; else `degraded`, never `down` — its reads go to
 * the primary meanwhile, so the service still serves them all.
 */
export class ReplicaHealthCheck implements HealthCheck {
  readonly name = 'replica';

  constructor(
    private readonly replicas: ReplicaStates,
    private readonly maxLagMs: number,
  ) {}

  check(): Promise<CheckOutcome> {
    const problems = this.replicas.state.flatMap((replica, index) => {
      if (!replica.up) return [`replica ${index + 1} unreachable`];
      if (replica.lagMs > this.maxLagMs) return [`replica ${index + 1} ${Math.round(replica.lagMs)} ms behind`];
      return [];
    });
    if (problems.length === 0) return Promise.resolve({ status: 'up' });
    return Promise.resolve({ status: 'degraded', message: problems.join(', ') });
  }
}
