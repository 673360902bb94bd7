import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { Api } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A raw TCP client: what it received, and when the server closed the connection. */
class RawClient {
  received = '';
  closedAt: number | undefined;
  readonly openedAt = performance.now();
  readonly closed: Promise<void>;
  private readonly socket: Socket;

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.socket = connect(Number(port), hostname);
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      this.socket.once('close', () => {
        this.closedAt = performance.now();
        resolve();
      }),
    );
  }

  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.socket.connecting) return resolve();
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
  }

  write(text: string): void {
    if (!this.socket.destroyed) this.socket.write(text);
  }

  end(): void {
    this.socket.end();
  }

  /** Waits until `count` complete answers (status line … blank line) have arrived, or the socket closed. */
  async answers(count: number, timeoutMs = 3000): Promise<{ status: number; head: string; body: string }[]> {
    const deadline = performance.now() + timeoutMs;
    const parse = () =>
      this.received
        .split(/(?=HTTP\/1\.1 \d{3} )/)
        .filter((part) => part.includes('\r\n\r\n'))
        .map((part) => {
          const [head = '', body = ''] = part.split('\r\n\r\n');
          return { status: Number(head.slice(9, 12)), head, body };
        });
    while (parse().length < count && this.closedAt === undefined && performance.now() < deadline) await sleep(10);
    return parse();
  }
}

const GET_LIVE = 'GET /health/live HTTP/1.1\r\nHost: portico\r\n\r\n';

describe('slow and greedy clients (docs/http.md and docs/errors.md)', function () {
  this.timeout(20_000);
  let service: RunningService;
  afterEach(async () => service.stop());

  it('closes, with 408, a connection whose headers take longer than server.headers_timeout', async () => {
    service = await startService(testConfig({ SVC_SERVER_HEADERS_TIMEOUT: '500ms' }), { logger: silentLogger() });
    const client = new RawClient(service.url);
    await client.connected();
    client.write('GET /health/live HTTP/1.1\r\nHost: portico\r\n');
    // One header line every 200 ms: the headers never end in time.
    const dribble = setInterval(() => client.write('X-Slow: yes\r\n'), 200);
    try {
      await Promise.race([client.closed, sleep(4000)]);
    } finally {
      clearInterval(dribble);
    }
    expect(client.closedAt, 'the server closed the connection').to.be.a('number');
    expect(client.closedAt! - client.openedAt).to.be.lessThan(2000);
    expect(client.received).to.match(/^HTTP\/1\.1 408 /);
    // A client that sends its headers in time is served.
    const prompt = new RawClient(service.url);
    prompt.write(GET_LIVE);
    expect((await prompt.answers(1))[0]?.status).to.equal(200);
    prompt.end();
  });

  it('bounds the open sockets per client IP by server.max_connections_per_ip', async () => {
    service = await startService(testConfig({ SVC_SERVER_MAX_CONNECTIONS_PER_IP: '3' }), { logger: silentLogger() });
    const clients = [new RawClient(service.url), new RawClient(service.url), new RawClient(service.url)];
    for (const client of clients) {
      await client.connected();
      client.write(GET_LIVE);
      expect((await client.answers(1))[0]?.status).to.equal(200);
    }
    const fourth = new RawClient(service.url);
    fourth.write(GET_LIVE);
    await Promise.race([fourth.closed, sleep(2000)]);
    expect(fourth.closedAt, 'the 4th socket is closed').to.be.a('number');
    expect(fourth.received).to.equal('');
    // The first three still work (keep-alive)...
    for (const client of clients) {
      client.write(GET_LIVE);
      expect((await client.answers(2)).map((a) => a.status)).to.deep.equal([200, 200]);
    }
    // ...and once one of them is closed, a new socket is accepted.
    clients[0]!.end();
    await clients[0]!.closed;
    await sleep(50);
    const fresh = new RawClient(service.url);
    fresh.write(GET_LIVE);
    expect((await fresh.answers(1))[0]?.status).to.equal(200);
    for (const client of [...clients.slice(1), fresh]) client.end();
  });

  it('answers headers or a URL past 16 KiB with 431 HEADERS_TOO_LARGE, and a malformed request with 400, in the envelope', async () => {
    service = await startService(testConfig(), { logger: silentLogger() });
    const cases = [
      {
        request: `GET /health/live HTTP/1.1\r\nHost: portico\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
        status: 431,
        code: 'HEADERS_TOO_LARGE',
        message: 'request headers too large',
      },
      {
        request: `GET /api/v1/products?q=${'b'.repeat(20 * 1024)} HTTP/1.1\r\nHost: portico\r\n\r\n`,
        status: 431,
        code: 'HEADERS_TOO_LARGE',
        message: 'request headers too large',
      },
      {
        request: 'GET /health/live HTTP/1.1\r\nHost: portico\r\nBad Header: x\r\n\r\n',
        status: 400,
        code: 'BAD_REQUEST',
        message: 'malformed request',
      },
    ];
    for (const { request: raw, status, code, message } of cases) {
      const client = new RawClient(service.url);
      client.write(raw);
      const [answer] = await client.answers(1);
      expect(answer?.status, raw.slice(0, 40)).to.equal(status);
      expect(answer!.head).to.match(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
      expect(answer!.head).to.match(/\r\nconnection: close(\r\n|$)/i);
      // docs/http.md: X-Request-ID on every response, these included (a new one each time).
      expect(answer!.head).to.match(
        /\r\nx-request-id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\r\n|$)/i,
      );
      expect(JSON.parse(answer!.body)).to.deep.equal({ success: false, error: { code, message } });
      await Promise.race([client.closed, sleep(2000)]);
      expect(client.closedAt, 'closed after the answer').to.be.a('number');
    }
    // Just under the limit is served.
    const fits = new RawClient(service.url);
    fits.write(`GET /health/live HTTP/1.1\r\nHost: portico\r\nX-Big: ${'a'.repeat(15 * 1024)}\r\n\r\n`);
    expect((await fits.answers(1))[0]?.status).to.equal(200);
    fits.end();
  });

  it('sheds load past server.max_in_flight: 503 OVERLOADED with Retry-After: 1, health probes still answered', async () => {
    service = await startService(testConfig({ SVC_SERVER_MAX_IN_FLIGHT: '1', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    // A slow upload holds the one place: the request is in progress while its body arrives.
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' });
    const upload = new Promise<number>((resolve, reject) => {
      const req = request(
        `${service.url}/api/v1/auth/login`,
        { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => req.end(body.slice(5)), 600);
    });
    await sleep(200);
    const api = new Api(service.url);
    const shed = await api.get('/api/v1/products');
    expect(shed.status).to.equal(503);
    expect(shed.headers.get('retry-after')).to.equal('1');
    expect(shed.body).to.deep.equal({
      success: false,
      error: { code: 'OVERLOADED', message: 'service overloaded, retry later' },
    });
    expect((await api.get('/health/live')).status).to.equal(200);
    expect(await upload).to.equal(401);
    expect((await api.get('/api/v1/products')).status).to.equal(401);
  });
});
