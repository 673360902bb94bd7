import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { overloaded } from '../../HttpProblem.js';

export interface LoadSheddingOptions {
  /** Requests in progress past which a new one is refused (`server.max_in_flight`). */
  maxInFlight: number;
  /** True while the event loop is overloaded (`LoopPressure` over the shared monitor in production). */
  loopOverloaded: () => boolean;
  /** Paths never refused nor counted (the health probes). */
  exemptPaths: readonly string[];
  /**
   * Spreads the admitted requests over short turns of the loop (`TurnBudget`); absent: each starts
   * at once. A request waiting for its turn counts as in progress.
   */
  turns?: { take(): Promise<void> | undefined };
}

const RETRY_AFTER_MS = 1000;

/**
 * Reads nothing more from a refused client's connection for its Retry-After second (and up to one
 * more, at random): its next
 * request waits in the kernel's buffer, costing the event loop nothing, so turns of the loop stay
 * short under overload and new connections (one accepted per turn) get in. Public APIs only:
 * `socket.pause()`/`resume()`, which Node's HTTP server honours. The pause is taken once the
 * answer has finished and Node's own end-of-request handling (which resumes the socket to read the
 * next request) has run, so it holds.
 */
function holdOff(res: ServerResponse, socket: Socket): void {
  res.once('finish', () => {
    setImmediate(() => {
      if (socket.destroyed) return;
      socket.pause();
      // Spread over a second past Retry-After, so refused clients do not all come back in one turn.
      setTimeout(
        () => {
          if (!socket.destroyed) socket.resume();
        },
        RETRY_AFTER_MS * (1 + Math.random()),
      ).unref();
    });
  });
}

/**
 * Load shedding: with more than `maxInFlight` requests in progress, or while the event loop is
 * overloaded, a new request is answered 503 `OVERLOADED` with `Retry-After: 1` at once, without
 * doing its work — so the requests admitted finish in bounded time and the loop stays free for the
 * health probes, which are never refused. A burst of up to `maxInFlight` requests is served. See
 * docs/adr/0015-load-shedding.md.
 *
 * A step of the spine: {@link admit} before the work, {@link release} once it is answered.
 */
export class LoadShedding {
  private readonly exempt: ReadonlySet<string>;
  private inFlight = 0;

  constructor(private readonly options: LoadSheddingOptions) {
    this.exempt = new Set(options.exemptPaths);
  }

  /**
   * `false` for an exempt path (neither refused nor counted). Otherwise counts the request in
   * progress and returns `true` — the caller then owes one {@link release} — or refuses it by
   * throwing the 503.
   */
  admit(ctx: Context): boolean {
    if (this.exempt.has(ctx.path)) return false;
    if (this.inFlight >= this.options.maxInFlight || this.options.loopOverloaded()) {
      holdOff(ctx.res, ctx.req.socket);
      throw overloaded();
    }
    this.inFlight += 1;
    return true;
  }

  /** For an admitted request: `undefined` when it may start now, else the turn it waits for. */
  turn(): Promise<void> | undefined {
    return this.options.turns?.take();
  }

  /** An admitted request was answered. */
  release(): void {
    this.inFlight -= 1;
  }
}
