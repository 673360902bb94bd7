import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/**
 * The process's one event-loop delay monitor (`perf_hooks.monitorEventLoopDelay`), shared by the
 * `event_loop` health check and load shedding. It rolls its samples over in short windows:
 * `recentDelayMs` is the worst delay of the last window and the current one (what shedding asks
 * on every request, cheap), and `takeP99Ms` the worst per-window p99 since the previous take (what
 * the check reports). One histogram, reset at each window (an `IntervalHistogram` cannot be merged).
 * A loop so busy that the histogram's 10 ms timer did not fire in a window still shows: the
 * window's own timer is late by as much, and an overdue window counts while it is overdue. And
 * within one turn of the loop (1,000 requests read in one poll), `recentDelayMs` also counts how
 * long the turn has been running since its first call — how long the request asking has waited.
 */
export class EventLoopDelayMonitor {
  private readonly live: IntervalHistogram;
  private worstP99SinceTakeMs = 0;
  private readonly timer: NodeJS.Timeout;
  private lastWindowMaxMs = 0;
  private nextRollDue: number;
  private turnStartedAt: number | undefined;

  constructor(private readonly windowMs = 250) {
    this.live = monitorEventLoopDelay({ resolution: 10 });
    this.live.enable();
    this.nextRollDue = performance.now() + windowMs;
    this.timer = setInterval(() => this.roll(), windowMs);
    this.timer.unref();
  }

  /** The worst event-loop delay (ms) over the last window and the one under way. */
  recentDelayMs(): number {
    const now = performance.now();
    if (this.turnStartedAt === undefined) {
      // The first call in this turn; the check phase at its end closes it.
      this.turnStartedAt = now;
      setImmediate(() => {
        this.turnStartedAt = undefined;
      });
    }
    const overdueMs = now - this.nextRollDue;
    const turnMs = now - this.turnStartedAt;
    return Math.max(this.lastWindowMaxMs, this.live.count > 0 ? this.live.max / 1e6 : 0, overdueMs, turnMs);
  }

  /** The worst window's p99 event-loop delay (ms) since the previous call (0 when nothing was sampled). */
  takeP99Ms(): number {
    this.roll();
    const p99Ms = this.worstP99SinceTakeMs;
    this.worstP99SinceTakeMs = 0;
    return p99Ms;
  }

  /** Stops sampling; call on shutdown. */
  close(): void {
    clearInterval(this.timer);
    this.live.disable();
  }

  private roll(): void {
    const now = performance.now();
    const lateMs = Math.max(0, now - this.nextRollDue);
    this.nextRollDue = now + this.windowMs;
    const sampled = this.live.count > 0;
    this.lastWindowMaxMs = Math.max(lateMs, sampled ? this.live.max / 1e6 : 0);
    if (sampled) this.worstP99SinceTakeMs = Math.max(this.worstP99SinceTakeMs, this.live.percentile(99) / 1e6);
    this.live.reset();
  }
}

/**
 * `event_loop`, the custom check: `degraded` when the p99 event-loop delay since the previous
 * check is above the threshold — the service still answers, but slowly.
 */
export class EventLoopHealthCheck implements HealthCheck {
  readonly name = 'event_loop';
  private readonly owned: boolean;

  constructor(
    private readonly thresholdMs = 200,
    private readonly monitor?: EventLoopDelayMonitor,
  ) {
    this.owned = monitor === undefined;
    this.monitor ??= new EventLoopDelayMonitor();
  }

  async check(): Promise<CheckOutcome> {
    const p99Ms = this.monitor!.takeP99Ms();
    if (p99Ms > this.thresholdMs) {
      return { status: 'degraded', message: `event loop delay p99 ${p99Ms.toFixed(1)}ms above ${this.thresholdMs}ms` };
    }
    return { status: 'up' };
  }

  /** Stops sampling when the check made its own monitor; a shared one is closed by its owner. */
  close(): void {
    if (this.owned) this.monitor!.close();
  }
}
