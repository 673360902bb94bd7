/**
 * Counts failed logins per key (e-mail and client IP). Promises: after `maxFailures` failures
 * within the window, `blockedFor` returns the seconds left until the window passes; `reset`
 * forgets the key (after a success).
 */
export interface LoginThrottle {
  blockedFor(key: string): Promise<number | undefined>;
  recordFailure(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}
