import type { Context } from 'koa';
import { requestTimedOut } from '../../HttpProblem.js';
import type { RequestState } from '../../state.js';

/**
 * The timeout step of the spine: starts the clock, then `work`; settles as the work does, or fails
 * with the 503 once the time is up.
 */
export type TimeoutStep = (ctx: Context & { state: RequestState }, work: () => Promise<unknown>) => Promise<void>;

/**
 * Answers 503 `TIMEOUT` when the work takes longer than `timeoutMs`, and aborts
 * `ctx.state.signal` so cooperative work can stop. Whatever the abandoned work does later is
 * discarded (its late failure is only logged). One timer and one promise per request.
 */
export function timeout(timeoutMs: number): TimeoutStep {
  return (ctx, start) =>
    new Promise<void>((resolve, reject) => {
      let work: Promise<unknown>;
      const timer = setTimeout(() => {
        ctx.state.expire();
        work.catch((error: unknown) => ctx.state.log.warn({ err: error }, 'request failed after it timed out'));
        reject(requestTimedOut());
      }, timeoutMs);
      try {
        work = start();
      } catch (error) {
        clearTimeout(timer);
        reject(error);
        return;
      }
      work.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
}
