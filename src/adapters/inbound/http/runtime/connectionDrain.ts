import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The graceful close (docs/http.md, docs/adr/0014-shutdown-sequence.md), on Node's documented API.
 *
 * `closeEachConnection` sets `Connection: close` on every answer from then on, and on those in
 * flight whose headers are not sent yet: Node closes a socket right after an answer that says so,
 * and keep-alive clients move to other instances.
 *
 * `close` then calls `server.close()`: it stops accepting, ends the connections waiting between two
 * requests, and leaves the others to finish — a request under way is answered (with
 * `Connection: close`, so its socket closes after it), and a connection accepted whose first request
 * has not arrived yet is served when it does. After `timeoutMs`, `server.closeAllConnections()` ends
 * what is left.
 *
 * `server.close()` also ends a connection whose answer is written in full but still on its way to
 * the client (a large body to a slow reader), which would cut that answer short. So the listener is
 * closed at a moment no answer is in that state: until then, answers still finish and close their
 * sockets, and new connections are served with `Connection: close`.
 */
export class ConnectionDrain {
  /** The answers whose response has not closed yet. */
  private readonly responses = new Set<ServerResponse>();
  private closingConnections = false;

  constructor(private readonly server: Server) {
    // Ahead of the app's own listener: the header is set before the app can send its answer.
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => this.track(res));
  }

  /** From now on every answer says `Connection: close` and its socket closes after it. */
  closeEachConnection(): void {
    this.closingConnections = true;
    for (const res of this.responses) closeAfter(res);
  }

  /** Stops accepting, lets requests under way finish (up to `timeoutMs`), closes every socket. */
  async close(timeoutMs: number): Promise<void> {
    this.closeEachConnection();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), timeoutMs);
    });
    try {
      const { closed } = await this.closeListener(expired);
      if ((await Promise.race([closed, expired])) === 'expired') {
        this.server.closeAllConnections();
        await closed;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Calls `server.close()` once no answer is being flushed (or once `expired`); `closed` settles when
   * every connection is gone.
   */
  private async closeListener(expired: Promise<'expired'>): Promise<{ closed: Promise<void> }> {
    for (let flushing = this.flushing(); flushing; flushing = this.flushing()) {
      if ((await Promise.race([flushed(flushing), expired])) === 'expired') break;
    }
    // In the same synchronous run as the last check: no answer can have started flushing since.
    return { closed: new Promise<void>((resolve) => this.server.close(() => resolve())) };
  }

  /** An answer ended by the app whose bytes have not all been handed to the socket yet. */
  private flushing(): ServerResponse | undefined {
    for (const res of this.responses) if (res.writableEnded && !res.writableFinished) return res;
    return undefined;
  }

  private track(res: ServerResponse): void {
    if (this.closingConnections) closeAfter(res);
    this.responses.add(res);
    res.once('close', () => this.responses.delete(res));
  }
}

/** Makes `res` say `Connection: close`, unless its headers are already on their way. */
function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

/** Settles once `res` is flushed (`finish`) or its connection is gone (`close`). */
function flushed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
}
