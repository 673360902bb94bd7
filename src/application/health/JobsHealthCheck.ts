import type { Clock } from '../ports/Clock.js';
import type { CheckOutcome, HealthCheck } from '../ports/HealthCheck.js';
import type { JobAdmin } from '../ports/Jobs.js';

/**
 * The `jobs` check of `/health` (docs/jobs.md): `degraded` when the oldest waiting job waited
 * longer than `maxLagMs` (no runner keeps up, or none runs) or when jobs failed for good within the
 * last hour; `up` otherwise. Jobs concern the whole service, not whether an instance can take
 * traffic: it is never part of readiness.
 */
export class JobsHealthCheck implements HealthCheck {
  readonly name = 'jobs';

  constructor(
    private readonly jobs: JobAdmin,
    private readonly clock: Clock,
    private readonly maxLagMs: number,
  ) {}

  async check(): Promise<CheckOutcome> {
    const stats = await this.jobs.stats(this.clock.now());
    const problems: string[] = [];
    if (stats.oldestWaitingSeconds * 1000 > this.maxLagMs)
      problems.push(`the oldest waiting job has waited ${Math.round(stats.oldestWaitingSeconds)} s`);
    if (stats.failedLastHour > 0) problems.push(`${stats.failedLastHour} job(s) failed in the last hour`);
    return problems.length === 0 ? { status: 'up' } : { status: 'degraded', message: problems.join('; ') };
  }
}
