import type { LoginThrottle, ThrottleStatus } from '../../../application/ports/LoginThrottle.js';
import type { Tally } from './Tally.js';

/**
 * A LoginThrottle that counts what it sees: each recorded failure is a failed login, and each
 * status that says "blocked" is a login refused for it (LoginUser refuses exactly then, once per
 * attempt). The use case stays unaware of metrics.
 */
export class MeteredLoginThrottle implements LoginThrottle {
  constructor(
    private readonly inner: LoginThrottle,
    private readonly counters: { failures: Tally; throttled: Tally },
  ) {}

  async status(key: string): Promise<ThrottleStatus> {
    const status = await this.inner.status(key);
    if (status.blockedForSeconds !== undefined) this.counters.throttled.inc();
    return status;
  }

  async recordFailure(key: string): Promise<void> {
    this.counters.failures.inc();
    await this.inner.recordFailure(key);
  }

  reset(key: string): Promise<void> {
    return this.inner.reset(key);
  }
}
