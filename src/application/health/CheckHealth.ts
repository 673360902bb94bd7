import { aggregateWeighed, type CheckResult, type HealthReport } from '../../domain/health/Health.js';
import type { Clock } from '../ports/Clock.js';
import type { HealthCheck } from '../ports/HealthCheck.js';
import type { HealthCheckRegistry, Probe } from './HealthCheckRegistry.js';

/** Tells whether the service has begun to shut down (readiness then reports `down`). */
export interface Lifecycle {
  isShuttingDown(): boolean;
}

export interface CheckHealthOptions {
  /** Each check is bounded by this; past it the check is `down` with message `timeout`. */
  readonly checkTimeoutMs: number;
  /** The moment the service started, for `uptime`. */
  readonly startedAt: Date;
}

/**
 * Runs the checks of one probe concurrently, each bounded by the check timeout, and
 * aggregates them into a HealthReport. Never rejects: a failing or hanging check is `down`.
 * A critical check that is `down` makes the report `down`; a non-critical one `degraded` at
 * worst (beside others). While the service shuts down, the readiness report is `down` whatever
 * the checks say.
 */
export class CheckHealth {
  constructor(
    private readonly registry: HealthCheckRegistry,
    private readonly clock: Clock,
    private readonly lifecycle: Lifecycle,
    private readonly options: CheckHealthOptions,
  ) {}

  async execute(probe: Probe): Promise<HealthReport> {
    const checks = this.registry.entriesFor(probe);
    const results = await Promise.all(checks.map((c) => this.run(c.check)));
    const entries: Record<string, CheckResult> = {};
    checks.forEach((c, i) => {
      entries[c.check.name] = results[i] as CheckResult;
    });
    let status = aggregateWeighed(
      results.map((r, i) => ({ status: r.status, critical: checks[i]?.critical ?? false })),
    );
    if (probe !== 'liveness' && this.lifecycle.isShuttingDown()) {
      entries['shutdown'] = { status: 'down', message: 'service is shutting down', latencyMs: 0 };
      status = 'down';
    }
    const now = this.clock.now();
    return {
      status,
      timestamp: now,
      uptimeMs: Math.max(0, now.getTime() - this.options.startedAt.getTime()),
      checks: entries,
    };
  }

  private async run(check: HealthCheck): Promise<CheckResult> {
    const started = this.clock.monotonicMs();
    const controller = new AbortController();
    const deadline = this.clock.delay(this.options.checkTimeoutMs);
    const timedOut = deadline.promise.then(() => 'timeout' as const);
    try {
      const outcome = await Promise.race([check.check(controller.signal), timedOut]);
      const latencyMs = this.clock.monotonicMs() - started;
      if (outcome === 'timeout') {
        controller.abort();
        return { status: 'down', message: 'timeout', latencyMs };
      }
      return outcome.message
        ? { status: outcome.status, message: outcome.message, latencyMs }
        : { status: outcome.status, latencyMs };
    } catch (error) {
      const message = error instanceof Error && error.message ? error.message : 'check failed';
      return { status: 'down', message, latencyMs: this.clock.monotonicMs() - started };
    } finally {
      deadline.cancel();
    }
  }
}
