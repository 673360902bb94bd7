import type { Logger } from 'pino';
import type { AccessScope } from '../../../application/ports/AccessPolicy.js';

/**
 * What the middleware chain keeps on `ctx.state` for the layers inside it. A class, so the
 * request's child logger and abort signal are built only when something asks for them — most
 * requests never log and never wait on the signal, and building either costs more than the rest
 * of its middleware.
 */
export class RequestState {
  /** Set by authentication once the bearer token is verified. */
  principal?: { userId: string; role: string; sessionId: string };
  /**
   * Set by the access check (`authorize`): the rows the caller's rule reaches on the route
   * (`scope`), and on each route it must also read (`reads`, in the order of its `readsToo`).
   */
  access?: { readonly scope: AccessScope; readonly reads: readonly AccessScope[] };
  private child: Logger | undefined;
  private controller: AbortController | undefined;
  private expired = false;

  constructor(
    private readonly root: Logger,
    readonly requestId: string,
    /** The request's trace id while tracing is on (its span is active), else undefined. */
    readonly traceId?: string,
  ) {}

  /** The service logger with this request's id (and trace id, when traced) on every line. */
  get log(): Logger {
    return (this.child ??= this.root.child(
      this.traceId === undefined
        ? { request_id: this.requestId }
        : { request_id: this.requestId, trace_id: this.traceId },
    ));
  }

  /** Aborted when the request times out; handlers may pass it to slow work. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.expired) this.controller.abort(); // asked for only after the deadline: already over
    }
    return this.controller.signal;
  }

  /** The deadline passed: abort the signal (now, or when it is first asked for). */
  expire(): void {
    this.expired = true;
    this.controller?.abort();
  }
}
