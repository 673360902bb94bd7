import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { startEntry } from '../support/process.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the request was sent (ms since the test's origin). */
  sentAt: number;
  /** When its answer ended. */
  receivedAt: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One request; resolves with the answer or rejects with the socket error (its `code`). */
function send(
  url: string,
  options: {
    agent?: Agent | false;
    method?: string;
    headers?: Record<string, string>;
    body?: string[];
    gapMs?: number;
  },
  origin: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sentAt = performance.now() - origin;
    const req = request(
      url,
      { agent: options.agent, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            sentAt,
            receivedAt: performance.now() - origin,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const [first, ...rest] = options.body ?? [];
    if (first === undefined) {
      req.end();
      return;
    }
    req.write(first);
    // A slow upload: the rest of the body comes `gapMs` later.
    void sleep(options.gapMs ?? 0).then(() => req.end(rest.join('')));
  });
}

describe('graceful shutdown with keep-alive clients (docs/http.md)', function () {
  this.timeout(30_000);

  it('answers readiness 503 during the delay, Connection: close on every answer, finishes in-flight work and resets no one', async () => {
    const service = await startService(testConfig({ SVC_RATE_LIMIT_ENABLED: 'false' }), { logger: silentLogger() });
    const api = new Api(service.url);
    const admin = await accountWithRole(service, api, 'admin');
    const auth = { Authorization: `Bearer ${admin.access_token}` };
    const origin = performance.now();
    const agent = new Agent({ keepAlive: true, maxSockets: 10 });
    const answers: Answer[] = [];
    const failures: string[] = [];
    let running = true;

    // Ten keep-alive connections sending requests back to back. A client told `Connection: close`
    // moves away (to another instance), as the delay intends. (A client opening a new connection at
    // the very moment the listener closes can be reset by the kernel from its accept queue: that
    // request never reached the service; see ADR 0014.)
    const worker = async (): Promise<string> => {
      while (running) {
        try {
          const answer = await send(`${service.url}/api/v1/products?per_page=5`, { agent, headers: auth }, origin);
          answers.push(answer);
          if (answer.headers.connection === 'close') return 'told to close';
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? String(error);
          failures.push(`${code} ${(error as Error).message}`);
          return code;
        }
      }
      return 'still running';
    };
    const workers = Array.from({ length: 10 }, () => worker());
    await sleep(300);
    expect(answers.length).to.be.greaterThan(10);
    expect(answers.every((a) => a.status === 200 && a.headers.connection === 'keep-alive')).to.equal(true);

    // Slow in-flight uploads: they start before the stop and end after the listener has closed.
    const slowAgent = new Agent({ keepAlive: true });
    const body = JSON.stringify({ ...PRODUCT_BODY, name: 'Uploaded slowly', price: 3.5 });
    const slow = [0, 1, 2].map(() =>
      send(
        `${service.url}/api/v1/products`,
        {
          agent: slowAgent,
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
          body: [body.slice(0, 10), body.slice(10)],
          gapMs: 1200,
        },
        origin,
      ),
    );
    await sleep(100);

    const stopAt = performance.now() - origin;
    const stopped = (service.stop as (o?: unknown) => Promise<void>)({ delayMs: 800 });
    await sleep(150);
    const ready = await send(`${service.url}/health/ready`, { agent: false }, origin);
    await sleep(450);
    // Still served as usual late in the delay, on a new connection.
    const live = await send(`${service.url}/health/live`, { agent: false }, origin);
    const list = await send(`${service.url}/api/v1/products?per_page=5`, { agent: false, headers: auth }, origin);
    await stopped;
    running = false;
    const endings = await Promise.all(workers);
    const uploads = await Promise.all(slow);
    agent.destroy();
    slowAgent.destroy();

    expect(failures, 'no request is reset').to.deep.equal([]);
    expect(ready.status).to.equal(503);
    expect(JSON.parse(ready.body)).to.have.nested.property('checks.shutdown.status', 'down');
    expect(live.status).to.equal(200);
    expect(live.headers.connection).to.equal('close');
    // During the delay the other routes are served as usual, with Connection: close.
    // Every keep-alive connection was served to the end and told to close; nothing else ended it.
    expect(endings).to.deep.equal(Array<string>(10).fill('told to close'));
    expect(answers.map((a) => a.status)).to.satisfy((values: number[]) => values.every((v) => v === 200));
    // What was asked after the stop began was served as usual, with Connection: close.
    const during = [...answers.filter((a) => a.sentAt > stopAt), list];
    expect(during.map((a) => `${a.status} ${a.headers.connection}`)).to.satisfy((values: string[]) =>
      values.every((v) => v === '200 close'),
    );
    expect(list.sentAt).to.be.greaterThan(stopAt + 500);
    // The slow uploads, in flight when the listener closed, completed.
    for (const upload of uploads) {
      expect(upload.status).to.equal(201);
      expect(upload.headers.connection).to.equal('close');
    }
    expect(Math.min(...uploads.map((u) => u.receivedAt))).to.be.greaterThan(stopAt + 800);
  });

  describe('npm start (the process) on SIGTERM', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-shutdown-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('answers readiness 503 before the port closes, then exits 0', async () => {
      const { child, match } = await startEntry(
        'src/main/server.ts',
        {
          SVC_SERVER_PORT: '0',
          SVC_SERVER_HOST: '127.0.0.1',
          SVC_DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}`,
          SVC_LOG_LEVEL: 'warn',
          SVC_SERVER_SHUTDOWN_DELAY: '1s',
        },
        /Portico listening on (http:\/\/127\.0\.0\.1:\d+)/,
      );
      const url = match[1]!;
      expect((await send(`${url}/health/ready`, { agent: false }, 0)).status).to.equal(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const seen: string[] = [];
      for (;;) {
        const outcome = await send(`${url}/health/ready`, { agent: false }, 0).then(
          (a) => `${a.status} ${a.headers.connection}`,
          (error: NodeJS.ErrnoException) => error.code ?? 'error',
        );
        if (outcome === 'ECONNREFUSED') break;
        seen.push(outcome);
        await sleep(50);
      }
      expect(await exited).to.equal(0);
      // Perhaps one 200 sent before the signal arrived; then 503 with Connection: close until the port closed.
      const afterSignal = seen.filter((s) => s !== '200 keep-alive');
      expect(afterSignal.length).to.be.greaterThan(5);
      expect(new Set(afterSignal)).to.deep.equal(new Set(['503 close']));
    });

    /** The process with a long shutdown delay, and the time it takes to exit after `signals`. */
    async function exitAfter(
      signals: { signal: NodeJS.Signals; afterMs: number }[],
    ): Promise<{ code: number | null; ms: number }> {
      const { child, match } = await startEntry(
        'src/main/server.ts',
        {
          SVC_SERVER_PORT: '0',
          SVC_SERVER_HOST: '127.0.0.1',
          SVC_DATABASE_URL: `sqlite:${join(dir, 'sigint.sqlite')}`,
          SVC_LOG_LEVEL: 'warn',
          SVC_SERVER_SHUTDOWN_DELAY: '20s',
        },
        /Portico listening on (http:\/\/127\.0\.0\.1:\d+)/,
      );
      expect((await send(`${match[1]!}/health/ready`, { agent: false }, 0)).status).to.equal(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const started = Date.now();
      for (const { signal, afterMs } of signals) {
        await sleep(afterMs);
        child.kill(signal);
      }
      const code = await exited;
      return { code, ms: Date.now() - started };
    }

    it('SIGINT skips server.shutdown_delay: exits 0 at once', async () => {
      const { code, ms } = await exitAfter([{ signal: 'SIGINT', afterMs: 0 }]);
      expect(code).to.equal(0);
      expect(ms).to.be.below(5000); // the delay is 20 s
    });

    it('SIGINT during the SIGTERM delay cuts it short: exits 0', async () => {
      const { code, ms } = await exitAfter([
        { signal: 'SIGTERM', afterMs: 0 },
        { signal: 'SIGINT', afterMs: 300 },
      ]);
      expect(code).to.equal(0);
      expect(ms).to.be.below(5000);
    });
  });
});
