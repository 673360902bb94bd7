import { performance } from 'node:perf_hooks';
import type { Clock, PendingDelay } from '../../../application/ports/Clock.js';

/** The real clock: wall time from `Date`, monotonic time from `performance.now()`. */
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }

  monotonicMs(): number {
    return performance.now();
  }

  delay(ms: number): PendingDelay {
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    });
    return { promise, cancel: () => clearTimeout(timer) };
  }
}
