import { randomUUID } from 'node:crypto';
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { mapError } from '../errorTable.js';
import { HttpProblem } from '../HttpProblem.js';
import type { Header } from './spine/securityHeaders.js';

export interface HttpServerOptions {
  /** `server.headers_timeout`: how long a client may take to send its request headers. */
  headersTimeoutMs: number;
  /** `server.request_timeout`: the app's own bound on a request (body included). */
  requestTimeoutMs: number;
  /** `server.max_connections_per_ip`: open sockets per client address, past which a new one is closed. */
  maxConnectionsPerIp: number;
  keepAliveTimeoutMs?: number;
  /** On the answers written on the socket too, as the app sets them on its own (`securityHeaderList`). */
  securityHeaders?: readonly Header[];
}

/** The Node HTTP server around the app, with its graceful close. */
export interface HttpServer {
  readonly server: Server;
  readonly drain: ConnectionDrain;
}

/**
 * Creates the Node server for `handle` with the slow-client bounds (headers timeout, a request
 * timeout that lets the app's own timeout answer first, sockets per IP), the error envelope on
 * the answers Node writes itself (431, 400) and a {@link ConnectionDrain} for shutdown.
 */
export function createHttpServer(handle: RequestListener, options: HttpServerOptions): HttpServer {
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      // Node's bound on receiving the whole request. The app answers 503 TIMEOUT first when a
      // body arrives too slowly (the body parser runs inside its timeout); this is the backstop
      // for a request the app never reads, so it must leave room for the headers and the app's bound.
      requestTimeout: options.headersTimeoutMs + options.requestTimeoutMs,
      // Node checks these timeouts on this interval (30 s by default, which would let a slow
      // client hold a socket for up to headers_timeout + 30 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(options.headersTimeoutMs / 4))),
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 65_000,
    },
    handle,
  );
  limitConnectionsPerIp(server, options.maxConnectionsPerIp);
  answerClientErrors(server, options.securityHeaders);
  return { server, drain: new ConnectionDrain(server) };
}

/**
 * Bounds the open sockets per remote address: past `max`, a new socket is destroyed as soon as it
 * is accepted (answering would mean reading its request first). The address is the TCP peer's,
 * so behind a proxy (`server.trust_proxy`) the bound applies to the proxy.
 */
export function limitConnectionsPerIp(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress;
    if (ip === undefined) return;
    const count = (open.get(ip) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(ip, count);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left > 0) open.set(ip, left);
      else open.delete(ip);
    });
  });
}

/** A whole HTTP/1.1 answer for a socket the app never saw; the body is the error table's envelope. */
function rawAnswer(headers: readonly Header[], problem?: HttpProblem, status = problem?.status ?? 408): string {
  const line = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}`;
  if (!problem) return `${line}Connection: close\r\nContent-Length: 0\r\n\r\n`;
  const json = JSON.stringify(mapError(problem).body);
  return (
    `${line}Content-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(json)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${json}`
  );
}

/**
 * What to write for each request Node refuses before the app sees it; `undefined`: just close. Each
 * answer carries a new `X-Request-ID` (docs/http.md: every response has one; the request's own is
 * not readable here).
 */
function clientErrorAnswers(headers: readonly Header[]): (code: string | undefined) => string | undefined {
  const withId = (): Header[] => [...headers, ['X-Request-ID', randomUUID()]];
  const headersTooLarge = new HttpProblem(431, 'HEADERS_TOO_LARGE', 'request headers too large');
  const badRequest = new HttpProblem(400, 'BAD_REQUEST', 'malformed request');
  return (code) => {
    if (code === 'HPE_HEADER_OVERFLOW') return rawAnswer(withId(), headersTooLarge);
    // Node's own answer to a client too slow with its headers: the contract has no code for it.
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return rawAnswer(withId(), undefined, 408);
    if (code?.startsWith('HPE_')) return rawAnswer(withId(), badRequest);
    return undefined;
  };
}

const answered = new WeakSet<Duplex>();

/**
 * Answers what Node's parser refuses in the error envelope: headers or URL past Node's
 * `maxHeaderSize` (16 KiB) → 431 `HEADERS_TOO_LARGE`, a malformed request → 400 `BAD_REQUEST`,
 * headers not received within `headersTimeout` → 408 (as Node does). Written on the socket,
 * half-closed, and destroyed once the client has read it (or after a second). Each carries `headers`.
 */
export function answerClientErrors(server: Server, headers: readonly Header[] = []): void {
  const clientErrorAnswer = clientErrorAnswers(headers);
  // The response each socket is writing, if any: a parse error on a kept-alive connection while a
  // response is under way must not write a second answer into it.
  const responding = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    responding.set(req.socket, res);
    res.once('close', () => {
      if (responding.get(req.socket) === res) responding.delete(req.socket);
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const answer = clientErrorAnswer(error.code);
    const response = responding.get(socket);
    if (answer === undefined || !socket.writable || response?.headersSent === true) {
      socket.destroy();
      return;
    }
    // Destroying at once could reset the connection before the client reads the answer (it may
    // still be sending the rest of its oversized request): end our side, keep reading, then destroy.
    socket.end(answer);
    socket.on('data', () => undefined);
    setTimeout(() => socket.destroy(), 1000).unref();
  });
}

interface SocketState {
  /** Requests whose request or response is not finished yet. */
  active: number;
  /** `bytesRead` when the socket last became idle; more read since means a request under way. */
  bytesAtIdle: number;
  /** Whether a request ever came on it (a fresh socket's first request is surely on its way). */
  used: boolean;
}

/** How long a socket accepted but not yet used may still send its first request once the listener is closed. */
const FRESH_SOCKET_GRACE_MS = 1000;

/**
 * The graceful close (docs/http.md, ADR 14). `closeEachConnection` makes every answer from then on (and
 * those in flight whose headers are not sent) say `Connection: close`, so keep-alive clients move
 * to other instances. `close` then stops accepting, lets the requests under way finish — a socket
 * is closed right after its last answer, never while a request is in progress or its bytes have
 * arrived — ends the idle sockets gracefully, and after `timeoutMs` destroys what is left.
 *
 * Node's own `server.close()` destroys the connections its parser sees as idle, including one
 * whose next request is already in the socket's buffer (that client gets ECONNRESET); so the
 * listener is closed with `net.Server#close` and idle sockets are judged here.
 */
export class ConnectionDrain {
  private readonly sockets = new Map<Socket, SocketState>();
  private readonly responses = new Set<ServerResponse>();
  private closingConnections = false;
  private listenerClosed = false;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      if (socket.destroyed) return;
      this.sockets.set(socket, { active: 0, bytesAtIdle: 0, used: false });
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.track(req, res));
  }

  /** From now on every answer says `Connection: close` and its socket closes after it. */
  closeEachConnection(): void {
    this.closingConnections = true;
    for (const res of this.responses) if (!res.headersSent) res.shouldKeepAlive = false;
  }

  /** Stops accepting, lets requests under way finish (up to `timeoutMs`), closes every socket. */
  async close(timeoutMs: number): Promise<void> {
    this.closeEachConnection();
    this.listenerClosed = true;
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(this.server, () => resolve()));
    for (const [socket, state] of this.sockets) this.endIfIdle(socket, state);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), timeoutMs);
    });
    try {
      if ((await Promise.race([closed, expired])) === 'expired') {
        for (const socket of this.sockets.keys()) socket.destroy();
        this.server.closeAllConnections();
        await closed;
      }
    } finally {
      clearTimeout(timer);
    }
    // Node's http.Server checks its connections' timeouts on an interval that only its own close()
    // stops. Every connection is gone by now, so that close has nothing else left to end.
    this.server.close(() => undefined);
  }

  private track(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    const state = this.sockets.get(socket);
    if (this.closingConnections) res.shouldKeepAlive = false;
    if (!state) return;
    this.responses.add(res);
    state.active += 1;
    state.used = true;
    // Idle again once both the answer is sent and the request fully read (Node reads and drops
    // an unread body after the answer): only then is `bytesRead` the end of this request.
    let pending = 2;
    const done = (): void => {
      pending -= 1;
      if (pending > 0) return;
      this.responses.delete(res);
      state.active -= 1;
      state.bytesAtIdle = socket.bytesRead;
      // After the parser has had its turn with anything already received.
      if (this.listenerClosed) setImmediate(() => this.endIfIdle(socket, state));
    };
    req.once('close', done);
    res.once('close', done);
  }

  /** Ends a socket with no request in progress and no request bytes received since its last answer. */
  private endIfIdle(socket: Socket, state: SocketState): void {
    if (socket.destroyed || state.active > 0 || socket.bytesRead !== state.bytesAtIdle) return;
    if (!state.used) {
      // Accepted just before the listener closed: its request may still be on the wire.
      state.used = true;
      setTimeout(() => this.endIfIdle(socket, state), FRESH_SOCKET_GRACE_MS).unref();
      return;
    }
    socket.end();
  }
}
