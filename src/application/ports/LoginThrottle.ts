/**
 * Counts login attempts per key (e-mail and client IP). Promises: `attempt` counts one attempt
 * atomically — concurrent attempts can never all slip under the limit — and resolves the seconds
 * to wait once the key has used up `maxFailures` attempts in the window without a success (the
 * attempt must then be refused), or `undefined` when it may go ahead; `reset` forgets the key
 * after a success.
 */
export interface LoginThrottle {
  attempt(key: string): Promise<number | undefined>;
  reset(key: string): Promise<void>;
}
