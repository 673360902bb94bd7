import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import type { RouteModule } from '../../../../src/adapters/inbound/http/app.js';
import { NotFoundError } from '../../../../src/domain/shared/DomainError.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';
import { capturingLogger } from '../../../support/logger.js';

const TIMEOUT_MS = 100;
const SLOW_MS = 1500;

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

describe('HTTP adapter: request timeout', () => {
  let app: RunningApp;
  let captured: ReturnType<typeof capturingLogger>;
  const seen: {
    signal?: AbortSignal;
    abortedAtEnd?: boolean;
    slowFinished?: boolean;
    lateThrown?: boolean;
    lateSignal?: AbortSignal;
  } = {};
  const processFaults: unknown[] = [];
  const onFault = (error: unknown): void => {
    processFaults.push(error);
  };

  const routes: RouteModule = (router) => {
    router.get('/slow', async (ctx) => {
      seen.signal = ctx.state.signal;
      await sleep(SLOW_MS);
      seen.slowFinished = true;
      ctx.body = { success: true, data: 'too late' };
    });
    router.get('/cooperative', async (ctx) => {
      const signal = ctx.state.signal!;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      seen.abortedAtEnd = signal.aborted;
    });
    router.get('/late-signal', async (ctx) => {
      await sleep(TIMEOUT_MS * 2);
      seen.lateSignal = ctx.state.signal;
    });
    router.get('/late-throw', async () => {
      await sleep(TIMEOUT_MS * 3);
      seen.lateThrown = true;
      throw new Error('failure after the answer was sent');
    });
    router.get('/fast', (ctx) => {
      seen.signal = ctx.state.signal;
      ctx.body = { success: true, data: 'fast' };
    });
    router.get('/half-timeout', async (ctx) => {
      await sleep(TIMEOUT_MS / 2);
      ctx.body = { success: true, data: 'in time' };
    });
    router.post('/upload', (ctx) => {
      ctx.body = { success: true, data: ctx.request.body };
    });
    router.get('/fast-not-found', () => {
      throw new NotFoundError('Product', '9');
    });
  };

  beforeEach(async () => {
    for (const key of Object.keys(seen)) delete seen[key as keyof typeof seen];
    processFaults.length = 0;
    process.on('unhandledRejection', onFault);
    process.on('uncaughtException', onFault);
    captured = capturingLogger();
    app = await startHttpApp({ logger: captured.logger, requestTimeoutMs: TIMEOUT_MS, routes: [routes] });
  });

  afterEach(async () => {
    process.off('unhandledRejection', onFault);
    process.off('uncaughtException', onFault);
    await app.close();
  });

  it('answers a slow route with 503 TIMEOUT `request timed out` in about the timeout', async () => {
    const started = performance.now();
    const res = await fetch(`${app.url}/slow`);
    const elapsed = performance.now() - started;
    expect(res.status).to.equal(503);
    expect(await res.json()).to.deep.equal({
      success: false,
      error: { code: 'TIMEOUT', message: 'request timed out' },
    });
    expect(elapsed).to.be.at.least(TIMEOUT_MS - 10);
    expect(elapsed, 'answered long before the handler ends').to.be.below(TIMEOUT_MS + 400);
    expect(seen.slowFinished, 'the handler is still running').to.not.equal(true);
  });

  it('keeps the request id and logs the 503', async () => {
    const res = await fetch(`${app.url}/slow`, { headers: { 'X-Request-ID': 'slow-req-1' } });
    expect(res.status).to.equal(503);
    expect(res.headers.get('x-request-id')).to.equal('slow-req-1');
    const line = captured.lines().find((l) => l.msg === 'request');
    expect(line).to.include({ path: '/slow', status: 503, request_id: 'slow-req-1' });
  });

  it("aborts the slow handler's state.signal", async () => {
    const res = await fetch(`${app.url}/slow`);
    expect(res.status).to.equal(503);
    expect(seen.signal, 'the handler got a signal').to.be.instanceOf(AbortSignal);
    expect(seen.signal!.aborted).to.equal(true);
  });

  it('hands an already aborted signal to a handler that asks for it only after the deadline', async () => {
    expect((await fetch(`${app.url}/late-signal`)).status).to.equal(503);
    await sleep(TIMEOUT_MS * 2);
    expect(seen.lateSignal?.aborted).to.equal(true);
  });

  it('lets a cooperative handler stop when the signal aborts', async () => {
    const res = await fetch(`${app.url}/cooperative`);
    expect(res.status).to.equal(503);
    await sleep(10);
    expect(seen.abortedAtEnd).to.equal(true);
  });

  it('survives a throw from the abandoned handler after the answer was sent', async () => {
    const res = await fetch(`${app.url}/late-throw`);
    expect(res.status).to.equal(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('TIMEOUT');
    await sleep(TIMEOUT_MS * 4);
    expect(seen.lateThrown, 'the handler did throw').to.equal(true);
    expect(processFaults, 'no unhandled rejection or uncaught exception').to.deep.equal([]);
    const warning = captured.lines().find((l) => l.msg === 'request failed after it timed out');
    expect(warning, 'the late failure is logged').to.not.equal(undefined);
    const after = await fetch(`${app.url}/fast`);
    expect(after.status).to.equal(200);
  });

  it('answers 503 TIMEOUT when the body trickles in past the timeout (the parser runs inside the timeout)', async () => {
    const url = new URL(app.url);
    const started = performance.now();
    const status = await new Promise<number>((resolve, reject) => {
      let answered = false;
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: '/upload',
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
        },
        (res) => {
          answered = true;
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      req.write('{"a":');
      // The rest never comes in time; the request is ended only after the answer.
      setTimeout(() => req.end('1}'), TIMEOUT_MS * 6).unref();
    });
    expect(status).to.equal(503);
    expect(performance.now() - started).to.be.below(TIMEOUT_MS * 5);
  });

  it('leaves fast routes alone, with a signal that is not aborted', async () => {
    const res = await fetch(`${app.url}/fast`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ success: true, data: 'fast' });
    expect(seen.signal).to.be.instanceOf(AbortSignal);
    await sleep(TIMEOUT_MS * 2);
    expect(seen.signal!.aborted, 'a finished request is never aborted later').to.equal(false);
  });

  it('leaves a route that takes half the timeout alone', async () => {
    const res = await fetch(`${app.url}/half-timeout`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ success: true, data: 'in time' });
  });

  it('leaves fast failures to the error table', async () => {
    const res = await fetch(`${app.url}/fast-not-found`);
    expect(res.status).to.equal(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('NOT_FOUND');
  });

  it('times out requests one by one: a fast request beside a slow one is answered', async () => {
    const slow = fetch(`${app.url}/slow`);
    const fast = await fetch(`${app.url}/fast`);
    expect(fast.status).to.equal(200);
    expect((await slow).status).to.equal(503);
  });

  it('expires each slow request at its own deadline, whatever finished between them (one timer for all)', async () => {
    const answeredAfter = async (path: string, delayMs: number): Promise<{ status: number; at: number }> => {
      await sleep(delayMs);
      const res = await fetch(`${app.url}${path}`);
      return { status: res.status, at: performance.now() - started };
    };
    const started = performance.now();
    const results = await Promise.all([
      answeredAfter('/slow', 0),
      answeredAfter('/fast', 10),
      answeredAfter('/half-timeout', 20),
      answeredAfter('/slow', TIMEOUT_MS / 2),
      answeredAfter('/slow', TIMEOUT_MS),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal([503, 200, 200, 503, 503]);
    for (const [index, startedAt] of [
      [0, 0],
      [3, TIMEOUT_MS / 2],
      [4, TIMEOUT_MS],
    ] as const) {
      expect(results[index]!.at, `request ${index}: not before its own deadline`).to.be.at.least(
        startedAt + TIMEOUT_MS - 10,
      );
      expect(results[index]!.at, `request ${index}: not long after it`).to.be.below(startedAt + TIMEOUT_MS + 300);
    }
  });
});
