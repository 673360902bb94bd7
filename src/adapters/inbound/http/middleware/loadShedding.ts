import type { Socket } from 'node:net';
import type { Middleware } from 'koa';
import type { AcceptQueueSnapshot } from '../acceptQueue.js';
import { overloaded } from '../HttpProblem.js';
import type { RequestState } from '../state.js';

export interface LoadSheddingOptions {
  /** Requests in progress past which a new one is refused (`server.max_in_flight`). */
  maxInFlight: number;
  /** Event-loop delay (ms) above which a new request is refused (`server.max_event_loop_delay`). */
  maxEventLoopDelayMs: number;
  /** The recent event-loop delay in ms (the shared monitor in production). */
  eventLoopDelayMs: () => number;
  /**
   * The connections waiting to be accepted (the listening socket's accept queue); absent where it
   * cannot be read. Each counts as a request in progress, and the oldest one's wait as event-loop
   * delay: the loop has not reached it yet.
   */
  acceptQueue?: () => AcceptQueueSnapshot;
  /** Paths never refused nor counted (the health probes). */
  exemptPaths: readonly string[];
}

/**
 * Reads nothing more from a refused client's connection for its Retry-After second: its next
 * request waits in the kernel's buffer, costing the event loop nothing. Without this, 1,000
 * clients retrying at once keep every turn of the loop busy answering 503s, and since Node 20
 * (libuv 1.45+) accepts one new connection per turn, new connections — the health probes — starve.
 * Uses the socket's handle (`readStop`/`readStart`), as Node's own HTTP server does; no-op without it.
 */
function holdOff(socket: Socket): void {
  const handle = (socket as unknown as { _handle?: { readStop?: () => number; readStart?: () => number } | null })
    ._handle;
  if (!handle?.readStop || !handle.readStart) return;
  handle.readStop();
  setTimeout(() => {
    if (!socket.destroyed) handle.readStart?.();
  }, RETRY_AFTER_MS).unref();
}

const RETRY_AFTER_MS = 1000;

/**
 * Load shedding (CONTRACT §18): with `maxInFlight` requests already in progress, or while the
 * event loop is late by more than `maxEventLoopDelayMs`, a new request is answered 503
 * `OVERLOADED` with `Retry-After: 1` at once, without doing its work — so the requests admitted
 * finish in bounded time and the loop stays free for the health probes, which are never refused.
 * Requests in progress include the connections waiting to be accepted, and the delay includes how
 * long the oldest of them has waited (libuv accepts one per turn of the loop, so under load that
 * is where new clients wait). See ADR 0015.
 */
export function loadShedding(options: LoadSheddingOptions): Middleware<RequestState> {
  const exempt = new Set(options.exemptPaths);
  let inFlight = 0;
  return async (ctx, next) => {
    if (exempt.has(ctx.path)) return next();
    const queued = options.acceptQueue?.();
    const inProgress = inFlight + (queued?.waiting ?? 0);
    // A connection not yet accepted has waited `oldestWaitMs` and still needs at least a turn of
    // the loop (accepted in one, its request read in the next): its delay is the two together.
    const delayMs = options.eventLoopDelayMs() + (queued?.oldestWaitMs ?? 0);
    if (inProgress >= options.maxInFlight || delayMs > options.maxEventLoopDelayMs) {
      holdOff(ctx.req.socket);
      throw overloaded();
    }
    inFlight += 1;
    try {
      await next();
    } finally {
      inFlight -= 1;
    }
  };
}
