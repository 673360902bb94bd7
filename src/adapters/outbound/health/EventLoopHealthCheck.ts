import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/**
 * `event_loop`, the custom check: `degraded` when the p99 event-loop delay since the previous
 * check is above the threshold — the service still answers, but slowly.
 */
export class EventLoopHealthCheck implements HealthCheck {
  readonly name = 'event_loop';
  private readonly histogram: IntervalHistogram;

  constructor(private readonly thresholdMs = 200) {
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
  }

  async check(): Promise<CheckOutcome> {
    const p99Ms = this.histogram.count > 0 ? this.histogram.percentile(99) / 1e6 : 0;
    this.histogram.reset();
    if (p99Ms > this.thresholdMs) {
      return { status: 'degraded', message: `event loop delay p99 ${p99Ms.toFixed(1)}ms above ${this.thresholdMs}ms` };
    }
    return { status: 'up' };
  }

  /** Stops sampling; call on shutdown. */
  close(): void {
    this.histogram.disable();
  }
}
