import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/** `http` entries: a GET to a URL; a 2xx or 3xx answer within `timeoutMs` is `up`. */
export class HttpHealthCheck implements HealthCheck {
  constructor(
    readonly name: string,
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  async check(signal: AbortSignal): Promise<CheckOutcome> {
    const bounded = AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]);
    try {
      const response = await fetch(this.url, { method: 'GET', redirect: 'manual', signal: bounded });
      await response.body?.cancel();
      if (response.status >= 200 && response.status < 400) return { status: 'up' };
      return { status: 'down', message: `HTTP ${response.status}` };
    } catch (error) {
      if (bounded.aborted) return { status: 'down', message: 'timeout' };
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
      const code = cause && 'code' in cause ? String(cause.code) : 'request failed';
      return { status: 'down', message: code };
    }
  }
}
