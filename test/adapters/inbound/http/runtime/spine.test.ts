import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { overloaded, routeNotFound } from '../../../../../src/adapters/inbound/http/HttpProblem.js';
import { spine, type SpineSteps } from '../../../../../src/adapters/inbound/http/runtime/index.js';
import type { RequestState } from '../../../../../src/adapters/inbound/http/state.js';
import { RateLimitedError } from '../../../../../src/domain/shared/DomainError.js';
import { silentLogger } from '../../../../support/logger.js';

/** What a request did, step by step, as the fake steps below note it. */
type Trace = string[];

interface Faults {
  /** The CORS step answers the request itself, as for a preflight. */
  preflight?: boolean;
  shed?: boolean;
  rateLimited?: boolean;
  /** The router leaves the request unanswered. */
  unrouted?: boolean;
  /** A request that must wait for its turn of the loop. */
  waits?: boolean;
}

/** The steps an admitted request goes through before its work, in order. */
const UP_TO_RATE_LIMIT = ['request id', 'metrics start', 'cors', 'admit', 'turn', 'rate limit'];

/** Every step of the spine as a fake that notes when it runs. */
function fakeSteps(trace: Trace, faults: Faults): SpineSteps {
  return {
    securityHeaders: [['X-Frame-Options', 'DENY']],
    requestId: () => {
      trace.push('request id');
      return 'req-1';
    },
    logger: silentLogger(),
    metrics: {
      started: () => trace.push('metrics start'),
      ended: (_ctx, status) => trace.push(`metrics ${status}`),
    },
    log: (_ctx, status) => trace.push(`log ${status}`),
    cors: (ctx) => {
      trace.push('cors');
      if (faults.preflight) ctx.status = 204;
      return Promise.resolve(faults.preflight === true);
    },
    shedding: {
      admit: () => {
        trace.push('admit');
        if (faults.shed) throw overloaded();
        return true;
      },
      turn: () => {
        trace.push('turn');
        return faults.waits ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
      },
      release: () => trace.push('release'),
    },
    rateLimit: () => {
      trace.push('rate limit');
      return faults.rateLimited ? Promise.reject(new RateLimitedError(3)) : Promise.resolve();
    },
    timeout: (_ctx, work) => {
      trace.push('timeout');
      return work().then(() => undefined);
    },
    body: () => {
      trace.push('body');
      return undefined;
    },
    fallback: () => {
      trace.push('fallback');
      throw routeNotFound();
    },
  };
}

describe('HTTP adapter: the spine runs each step once, in order (docs/adr/0031-one-spine.md)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function request(faults: Faults): Promise<{ trace: Trace; res: Response; body: unknown }> {
    const trace: Trace = [];
    const app = new Koa<RequestState>();
    app.silent = true;
    app.use(spine(fakeSteps(trace, faults)));
    app.use((ctx) => {
      trace.push(`router ${ctx.state.requestId}`);
      if (!faults.unrouted) ctx.body = { success: true };
    });
    const handle = app.callback();
    server = createServer((req, res) => {
      void handle(req, res);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/things`);
    const text = await res.text();
    return { trace, res, body: text === '' ? undefined : JSON.parse(text) };
  }

  it('runs the prelude, then CORS, shedding, the rate limit, the timeout around body and router, then the completion', async () => {
    const { trace, res } = await request({});
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(trace).to.deep.equal([
      ...UP_TO_RATE_LIMIT,
      'timeout',
      'body',
      'router req-1',
      'release',
      'metrics 200',
      'log 200',
    ]);
  });

  it('lets a request that waits for its turn go on once its turn comes', async () => {
    const { trace, res } = await request({ waits: true });
    expect(res.status).to.equal(200);
    expect(trace.indexOf('router req-1')).to.be.greaterThan(trace.indexOf('turn'));
  });

  it('answers a preflight in CORS: no shedding, rate limit or router, but metered and logged', async () => {
    const { trace, res } = await request({ preflight: true });
    expect(res.status).to.equal(204);
    expect(trace).to.deep.equal(['request id', 'metrics start', 'cors', 'metrics 204', 'log 204']);
  });

  it('answers a shed request 503 without its rate limit or work, and releases nothing it did not take', async () => {
    const { trace, res, body } = await request({ shed: true });
    expect(res.status).to.equal(503);
    expect(body).to.nested.include({ success: false, 'error.code': 'OVERLOADED' });
    expect(trace).to.deep.equal(['request id', 'metrics start', 'cors', 'admit', 'metrics 503', 'log 503']);
  });

  it('answers a rate-limited request 429 in the error envelope, and releases its place', async () => {
    const { trace, res, body } = await request({ rateLimited: true });
    expect(res.status).to.equal(429);
    expect(body).to.nested.include({ success: false, 'error.code': 'RATE_LIMITED' });
    expect(res.headers.get('retry-after')).to.equal('3');
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(trace).to.deep.equal([...UP_TO_RATE_LIMIT, 'release', 'metrics 429', 'log 429']);
  });

  it('asks the fallback only for a request the router left unanswered, and answers what it throws', async () => {
    const { trace, res } = await request({ unrouted: true });
    expect(res.status).to.equal(404);
    expect(trace.slice(-5)).to.deep.equal(['router req-1', 'fallback', 'release', 'metrics 404', 'log 404']);
    const answered = await request({});
    expect(answered.trace).to.not.include('fallback');
  });
});
