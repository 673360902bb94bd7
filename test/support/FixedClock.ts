import type { Clock, PendingDelay } from '../../src/application/ports/Clock.js';

/**
 * A clock that moves only when told. `delay` promises resolve when `advance` passes their
 * deadline, so timeouts are tested without waiting.
 */
export class FixedClock implements Clock {
  private current: number;
  private monotonic = 0;
  private waiting: { at: number; resolve: () => void; cancelled: boolean }[] = [];

  constructor(start = new Date('2026-01-01T00:00:00Z')) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  monotonicMs(): number {
    return this.monotonic;
  }

  delay(ms: number): PendingDelay {
    let entry!: { at: number; resolve: () => void; cancelled: boolean };
    const promise = new Promise<void>((resolve) => {
      entry = { at: this.monotonic + ms, resolve, cancelled: false };
    });
    this.waiting.push(entry);
    return {
      promise,
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  /** Moves both clocks forward and fires every delay that is now due. */
  advance(ms: number): void {
    this.current += ms;
    this.monotonic += ms;
    const due = this.waiting.filter((w) => !w.cancelled && w.at <= this.monotonic);
    this.waiting = this.waiting.filter((w) => !due.includes(w));
    for (const w of due) w.resolve();
  }

  /** Number of delays still pending (not fired, not cancelled). */
  pendingDelays(): number {
    return this.waiting.filter((w) => !w.cancelled).length;
  }
}
