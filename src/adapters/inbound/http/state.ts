import type { Logger } from 'pino';

/** What the middleware chain puts on `ctx.state` for the layers inside it. */
export interface RequestState {
  requestId: string;
  log: Logger;
  /** Aborted when the request times out; handlers may pass it to slow work. */
  signal?: AbortSignal;
  /** Set by authentication once the bearer token is verified. */
  principal?: { userId: string; role: string };
}
