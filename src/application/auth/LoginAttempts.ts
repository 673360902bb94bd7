import { RateLimitedError } from '../../domain/shared/DomainError.js';
import type { LoginThrottle } from '../ports/LoginThrottle.js';

/** The login throttle's key: an e-mail from a client address (a password's and a second factor's failures alike). */
export const throttleKey = (email: string, clientIp: string): string => `${email}|${clientIp}`;

/**
 * Bounds the checks of one throttle key (an e-mail and a client IP) running at once: a check starts
 * only while fewer are running than the key has failures left, so concurrent guesses — of a password
 * or of a second-factor code, which share the key — can never exceed the limit, yet concurrent right
 * ones are never refused: extra ones wait for a running check to finish, then look again. One per
 * process, shared by every use case counting against the login throttle.
 */
export class LoginAttempts {
  /** Checks running per key, and who waits for one to finish. */
  private readonly running = new Map<string, { count: number; waiting: (() => void)[] }>();

  constructor(private readonly throttle: LoginThrottle) {}

  /**
   * Runs `check` for `key` once admitted; RateLimitedError (with `message`) while the key is blocked.
   * The check records its own failures and success on the throttle.
   */
  async run<T>(key: string, message: string, check: () => Promise<T>): Promise<T> {
    await this.admit(key, message);
    try {
      return await check();
    } finally {
      this.release(key);
    }
  }

  private async admit(key: string, message: string): Promise<void> {
    for (;;) {
      const { blockedForSeconds, remaining } = await this.throttle.status(key);
      if (blockedForSeconds !== undefined) throw new RateLimitedError(blockedForSeconds, message);
      const gate = this.running.get(key) ?? { count: 0, waiting: [] };
      if (gate.count < remaining) {
        gate.count += 1;
        this.running.set(key, gate);
        return;
      }
      await new Promise<void>((resolve) => gate.waiting.push(resolve));
    }
  }

  private release(key: string): void {
    const gate = this.running.get(key);
    if (!gate) return;
    gate.count -= 1;
    const waiting = gate.waiting.splice(0);
    if (gate.count === 0 && waiting.length === 0) this.running.delete(key);
    for (const wake of waiting) wake();
  }
}
