import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/** One closed window of the event-loop monitor. */
export interface LoopWindow {
  /** The worst event-loop delay seen in the window (ms), the window's own timer lateness included. */
  maxDelayMs: number;
  /** The share of the window the loop spent running callbacks rather than waiting for I/O (0 to 1). */
  utilization: number;
}

/**
 * The process's one event-loop delay monitor (`perf_hooks.monitorEventLoopDelay` and
 * `performance.eventLoopUtilization`), shared by the `event_loop` health check and load shedding.
 * It rolls its samples over in short windows: each closed window is handed to the listeners
 * (`onWindow`) with its worst delay and the loop's utilisation, and `takeP99Ms` gives the worst
 * per-window p99 since the previous take (what the check reports). One histogram, reset at each
 * window (an `IntervalHistogram` cannot be merged). A loop so busy that the histogram's 10 ms
 * timer did not fire in a window still shows: the window's own timer is late by as much.
 */
export class EventLoopDelayMonitor {
  private readonly live: IntervalHistogram;
  private worstP99SinceTakeMs = 0;
  private readonly timer: NodeJS.Timeout;
  private nextRollDue: number;
  private utilizationMark: EventLoopUtilization;
  private pendingMaxMs = 0;
  private readonly listeners: ((window: LoopWindow) => void)[] = [];

  constructor(private readonly windowMs = 250) {
    this.live = monitorEventLoopDelay({ resolution: 10 });
    this.live.enable();
    this.nextRollDue = performance.now() + windowMs;
    this.utilizationMark = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.roll(true), windowMs);
    this.timer.unref();
  }

  /** Calls `listener` with every window as it closes. */
  onWindow(listener: (window: LoopWindow) => void): void {
    this.listeners.push(listener);
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

  /** Closes the window; only the timer's rolls (whole windows) reach the listeners, not a check's. */
  private roll(byTimer = false): void {
    const now = performance.now();
    const lateMs = Math.max(0, now - this.nextRollDue);
    this.nextRollDue = now + this.windowMs;
    const sampled = this.live.count > 0;
    const maxDelayMs = Math.max(lateMs, sampled ? this.live.max / 1e6 : 0);
    if (sampled) this.worstP99SinceTakeMs = Math.max(this.worstP99SinceTakeMs, this.live.percentile(99) / 1e6);
    this.live.reset();
    // A check's roll in the middle of a window keeps what it saw for the window's listeners.
    this.pendingMaxMs = Math.max(this.pendingMaxMs, maxDelayMs);
    if (!byTimer) return;
    const windowMaxMs = this.pendingMaxMs;
    this.pendingMaxMs = 0;
    const mark = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(mark, this.utilizationMark);
    this.utilizationMark = mark;
    for (const listener of this.listeners) listener({ maxDelayMs: windowMaxMs, utilization });
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
