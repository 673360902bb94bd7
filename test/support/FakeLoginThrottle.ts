import type { Clock } from '../../src/application/ports/Clock.js';
import type { LoginThrottle, ThrottleStatus } from '../../src/application/ports/LoginThrottle.js';

export interface FakeLoginThrottleOptions {
  readonly maxFailures?: number;
  readonly windowMs?: number;
}

/**
 * A deterministic LoginThrottle driven by a clock: a fixed window opens at a key's first
 * failure and lasts `windowMs`; once `maxFailures` failures fall in it, the key is blocked until
 * the window ends. Same semantics as the rate-limiter-flexible adapter, without the real clock.
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

  async status(key: string): Promise<ThrottleStatus> {
    await Promise.resolve();
    const window = this.current(key);
    const failures = window?.failures ?? 0;
    if (!window || failures < this.maxFailures)
      return { blockedForSeconds: undefined, remaining: this.maxFailures - failures };
    const msLeft = window.openedAt + this.windowMs - this.clock.now().getTime();
    return { blockedForSeconds: Math.max(1, Math.ceil(msLeft / 1000)), remaining: 0 };
  }

  async recordFailure(key: string): Promise<void> {
    await Promise.resolve();
    const window = this.current(key);
    if (window) window.failures += 1;
    else this.windows.set(key, { openedAt: this.clock.now().getTime(), failures: 1 });
  }

  async reset(key: string): Promise<void> {
    await Promise.resolve();
    this.windows.delete(key);
  }

  /** Failures counted for `key` in its open window (0 when none). */
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
