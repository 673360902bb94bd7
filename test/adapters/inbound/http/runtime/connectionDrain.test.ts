import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { expect } from 'chai';
import { createHttpServer, type HttpServer } from '../../../../../src/adapters/inbound/http/runtime/index.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** A raw client on one connection: every byte it received, and whether the server closed it. */
class RawClient {
  private readonly chunks: Buffer[] = [];
  closed = false;
  readonly ended: Promise<void>;
  readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => this.chunks.push(chunk));
    this.socket.on('error', () => undefined);
    this.ended = new Promise((resolve) =>
      this.socket.once('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  get received(): Buffer {
    return Buffer.concat(this.chunks);
  }

  get(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: portico\r\n\r\n`);
  }

  /** The heads of the answers received so far. */
  heads(): string[] {
    return this.received
      .toString('latin1')
      .split(/(?=HTTP\/1\.1 \d{3} )/)
      .filter((part) => part.includes('\r\n\r\n'))
      .map((part) => part.slice(0, part.indexOf('\r\n\r\n')));
  }

  async until(done: () => boolean, timeoutMs = 3000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done() && performance.now() < deadline) await sleep(5);
  }
}

const OPTIONS = { headersTimeoutMs: 2000, requestTimeoutMs: 2000, maxConnectionsPerIp: 100 };

describe('HTTP runtime: the connection drain (docs/adr/0014-shutdown-sequence.md)', function () {
  this.timeout(10_000);
  let http: HttpServer;
  let port: number;
  let handle: (req: IncomingMessage, res: ServerResponse) => void;

  beforeEach(async () => {
    handle = (_req, res) => res.end('ok');
    http = createHttpServer((req, res) => handle(req, res), OPTIONS);
    await new Promise<void>((resolve) => http.server.listen(0, '127.0.0.1', resolve));
    port = (http.server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    http.server.closeAllConnections();
    if (http.server.listening) await new Promise((resolve) => http.server.close(resolve));
  });

  it('once asked, every answer says Connection: close, those in flight too, and each socket closes after its answer', async () => {
    const release = gate();
    const seen: unknown[] = [];
    handle = (req, res) => {
      if (req.url !== '/slow') return res.end('ok');
      void release.opened.then(() => {
        // On the answer itself, where every layer that reads its headers sees it.
        seen.push(res.getHeader('connection'));
        res.end('slow');
      });
    };
    const kept = new RawClient(port);
    kept.get('/fast');
    await kept.until(() => kept.heads().length === 1);
    expect(kept.heads()[0]).to.match(/\r\nConnection: keep-alive/i);
    const inFlight = new RawClient(port);
    inFlight.get('/slow');
    await sleep(50);

    http.drain.closeEachConnection();
    release.open();
    await inFlight.ended;
    expect(inFlight.heads()).to.have.length(1);
    expect(inFlight.heads()[0]).to.match(/^HTTP\/1\.1 200 .*\r\nConnection: close/is);
    expect(seen).to.deep.equal(['close']);
    // A kept-alive connection's next answer says so too, and the server closes it.
    kept.get('/fast');
    await kept.ended;
    expect(kept.heads()).to.have.length(2);
    expect(kept.heads()[1]).to.match(/\r\nConnection: close/i);
    // The listener itself is still open: a new connection is served, told to close.
    const fresh = new RawClient(port);
    fresh.get('/fast');
    await fresh.ended;
    expect(fresh.heads()[0]).to.match(/^HTTP\/1\.1 200 .*\r\nConnection: close/is);
  });

  it('an answer the app has ended but a slow reader has not taken yet arrives whole', async () => {
    const body = Buffer.alloc(16 * 1024 * 1024, 'a');
    const ended = gate();
    handle = (_req, res) => {
      res.setHeader('Content-Length', body.length);
      res.end(body);
      ended.open();
    };
    const reader = new RawClient(port);
    reader.socket.pause();
    reader.get('/large');
    await ended.opened;
    await sleep(50);

    const closing = http.drain.close(5000);
    await sleep(200);
    reader.socket.resume();
    await closing;
    await reader.ended;
    const head = reader.heads()[0] ?? '';
    expect(reader.received.length - head.length - 4).to.equal(body.length);
  });

  it('a connection accepted before the listener closed is served when its request arrives', async () => {
    const accepted = new Promise<void>((resolve) => http.server.once('connection', () => resolve()));
    const late = new RawClient(port);
    await accepted;
    const closing = http.drain.close(5000);
    await sleep(100);
    late.get('/late');
    await closing;
    await late.ended;
    expect(late.heads()).to.have.length(1);
    expect(late.heads()[0]).to.match(/^HTTP\/1\.1 200 .*\r\nConnection: close/is);
  });

  it('closes idle keep-alive connections and the listener at once', async () => {
    const idle = new RawClient(port);
    idle.get('/');
    await idle.until(() => idle.heads().length === 1);
    const started = performance.now();
    await http.drain.close(5000);
    expect(performance.now() - started).to.be.below(1000);
    await idle.ended;
    expect(idle.closed).to.equal(true);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).to.equal('ECONNREFUSED');
  });

  it('past its timeout, ends whatever is still open', async () => {
    handle = () => undefined; // never answers
    const stuck = new RawClient(port);
    stuck.get('/stuck');
    await sleep(50);
    const started = performance.now();
    await http.drain.close(300);
    expect(performance.now() - started).to.be.within(250, 1500);
    await stuck.ended;
    expect(stuck.heads()).to.deep.equal([]);
  });
});
