/** A timer that can be released before it fires. */
export interface PendingDelay {
  readonly promise: Promise<void>;
  cancel(): void;
}

/**
 * Time, kept behind a port so use cases stay deterministic in tests.
 * Promises: `now` is wall-clock time; `monotonicMs` only ever grows and measures elapsed time;
 * `delay` resolves once `ms` have passed, unless cancelled (then it never resolves).
 */
export interface Clock {
  now(): Date;
  monotonicMs(): number;
  delay(ms: number): PendingDelay;
}
