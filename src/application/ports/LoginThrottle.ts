/** Where one key (e-mail and client IP) stands in its failed-login window. */
export interface ThrottleStatus {
  /** Seconds until the window passes, when the key has used up its failures; else undefined. */
  readonly blockedForSeconds: number | undefined;
  /** Failures the key may still have in this window (0 when blocked). */
  readonly remaining: number;
}

/**
 * Counts failed logins per key (e-mail and client IP). Promises: once `maxFailures` failures fall
 * in the window the key is blocked until the window passes; `reset` forgets the key after a
 * success. Concurrency is the caller's to bound (see LoginUser): `status` then `recordFailure`
 * is not atomic on its own.
 */
export interface LoginThrottle {
  status(key: string): Promise<ThrottleStatus>;
  recordFailure(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}
