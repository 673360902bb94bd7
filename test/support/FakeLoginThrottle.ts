import type { Clock } from '../../src/application/ports/Clock.js';
import type { LoginThrottle } from '../../src/application/ports/LoginThrottle.js';

export interface FakeLoginThrottleOptions {
  readonly maxFailures?: number;
  readonly windowMs?: number;
}

/**
 * A deterministic LoginThrottle driven by a clock: a fixed window opens at a key's first
 * attempt and lasts `windowMs`; once `maxFailures` attempts fall in it without a success (which
 * resets the key), further attempts are refused until the window ends. Same semantics as the
 * rate-limiter-flexible adapter, without the real clock.
 */
export class FakeLoginThrottle implements LoginThrottle {
  readonly maxFailures: number;
  readonly windowMs: number;
  private readonly windows = new Map<string, { openedAt: number; failures: number }>();

  constructor(
    private readonly clock: Clock,
    options: FakeLoginThrottleOptions = {},
  ) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowMs = options.windowMs ?? 15 * 60_000;
  }

  async attempt(key: string): Promise<number | undefined> {
    await Promise.resolve();
    const window = this.current(key);
    if (window && window.failures >= this.maxFailures) {
      const msLeft = window.openedAt + this.windowMs - this.clock.now().getTime();
      return Math.max(1, Math.ceil(msLeft / 1000));
    }
    if (window) window.failures += 1;
    else this.windows.set(key, { openedAt: this.clock.now().getTime(), failures: 1 });
    return undefined;
  }

  async reset(key: string): Promise<void> {
    await Promise.resolve();
    this.windows.delete(key);
  }

  /** Attempts counted for `key` in its open window since the last success (0 when none). */
  failuresOf(key: string): number {
    return this.current(key)?.failures ?? 0;
  }

  private current(key: string): { openedAt: number; failures: number } | undefined {
    const window = this.windows.get(key);
    if (window && this.clock.now().getTime() >= window.openedAt + this.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }
}
