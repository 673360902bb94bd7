import { randomUUID } from 'node:crypto';
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { mapError } from '../errorTable.js';
import { HttpProblem } from '../HttpProblem.js';
import { ConnectionDrain } from './connectionDrain.js';
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
