import type { Middleware } from 'koa';
import { requestTimedOut } from '../HttpProblem.js';
import type { RequestState } from '../state.js';

/**
 * Answers 503 `TIMEOUT` when the layers below take longer than `timeoutMs`, and aborts
 * `ctx.state.signal` so cooperative work can stop. Whatever the abandoned handler does later
 * is discarded (its late failure is only logged).
 */
export function timeout(timeoutMs: number): Middleware<RequestState> {
  return async (ctx, next) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), timeoutMs);
    });
    const work = next().then(() => 'done' as const);
    try {
      const outcome = await Promise.race([work, expired]);
      if (outcome === 'expired') {
        ctx.state.expire();
        work.catch((error: unknown) => ctx.state.log.warn({ err: error }, 'request failed after it timed out'));
        throw requestTimedOut();
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
