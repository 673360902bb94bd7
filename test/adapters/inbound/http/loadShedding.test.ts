import { connect } from 'node:net';
import { expect } from 'chai';
import type { HttpAppOptions, RouteModule } from '../../../../src/adapters/inbound/http/app.js';
import { healthRoutes } from '../../../../src/adapters/inbound/http/routes/health.js';
import { SystemClock } from '../../../../src/adapters/outbound/system/SystemClock.js';
import { CheckHealth } from '../../../../src/application/health/CheckHealth.js';
import { HealthCheckRegistry } from '../../../../src/application/health/HealthCheckRegistry.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';

/** A route whose work waits until the test releases it, counting how often the work began. */
class SlowRoute {
  started = 0;
  private waiting: (() => void)[] = [];

  readonly routes: RouteModule = (router) => {
    router.get('/api/v1/slow', async (ctx) => {
      this.started += 1;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      ctx.body = { success: true, data: 'done' };
    });
  };

  release(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

function health(): RouteModule {
  const checkHealth = new CheckHealth(
    new HealthCheckRegistry(),
    new SystemClock(),
    { isShuttingDown: () => false },
    {
      checkTimeoutMs: 1000,
      startedAt: new Date(),
    },
  );
  return healthRoutes(checkHealth);
}

const until = async (condition: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition(), 'condition reached').to.equal(true);
};

async function expectOverloaded(res: Response): Promise<void> {
  expect(res.status).to.equal(503);
  expect(res.headers.get('retry-after')).to.equal('1');
  expect(res.headers.get('x-request-id')).to.be.a('string');
  expect(await res.json()).to.deep.equal({
    success: false,
    error: { code: 'OVERLOADED', message: 'service overloaded, retry later' },
  });
}

describe('HTTP adapter: load shedding (docs/adr/0015-load-shedding.md)', () => {
  let app: RunningApp;
  let slow: SlowRoute;
  let loopOverloaded = false;
  const start = async (shedding: Partial<NonNullable<HttpAppOptions['shedding']>> = {}): Promise<void> => {
    slow = new SlowRoute();
    app = await startHttpApp({
      routes: [slow.routes, health()],
      shedding: {
        maxInFlight: 2,
        loopOverloaded: () => loopOverloaded,
        ...shedding,
      },
    });
  };
  afterEach(async () => {
    slow.release();
    loopOverloaded = false;
    await app.close();
  });

  it('past server.max_in_flight answers 503 OVERLOADED with Retry-After: 1 at once, without doing the work', async () => {
    await start();
    const first = fetch(`${app.url}/api/v1/slow`);
    const second = fetch(`${app.url}/api/v1/slow`);
    await until(() => slow.started === 2);
    await expectOverloaded(await fetch(`${app.url}/api/v1/slow`));
    expect(slow.started).to.equal(2);
    // Unknown routes are refused too: shedding comes before routing.
    expect((await fetch(`${app.url}/api/v1/nothing-here`)).status).to.equal(503);
    // The health probes are never refused.
    for (const path of ['/health/live', '/health/ready', '/health'])
      expect((await fetch(`${app.url}${path}`)).status).to.equal(200);
    slow.release();
    expect((await first).status).to.equal(200);
    expect((await second).status).to.equal(200);
    // The admitted requests are done: room again.
    const again = fetch(`${app.url}/api/v1/slow`);
    await until(() => slow.started === 3);
    slow.release();
    expect((await again).status).to.equal(200);
  });

  it('serves exactly server.max_in_flight requests in progress at once (a burst of that size is never refused)', async () => {
    await start({ maxInFlight: 5 });
    const admitted = Array.from({ length: 5 }, () => fetch(`${app.url}/api/v1/slow`));
    await until(() => slow.started === 5);
    await expectOverloaded(await fetch(`${app.url}/api/v1/slow`));
    slow.release();
    for (const res of await Promise.all(admitted)) expect(res.status).to.equal(200);
  });

  it('counts a request waiting for its turn of the loop as in progress, and the health probes never wait for one', async () => {
    const turns: (() => void)[] = [];
    await start({
      maxInFlight: 2,
      turns: { take: () => new Promise<void>((resolve) => turns.push(resolve)) },
    });
    const waiting = [fetch(`${app.url}/api/v1/slow`), fetch(`${app.url}/api/v1/slow`)];
    await until(() => turns.length === 2);
    expect(slow.started, 'started before their turn').to.equal(0);
    await expectOverloaded(await fetch(`${app.url}/api/v1/slow`));
    expect((await fetch(`${app.url}/health/live`)).status).to.equal(200);
    for (const turn of turns.splice(0)) turn();
    await until(() => slow.started === 2);
    slow.release();
    for (const res of await Promise.all(waiting)) expect(res.status).to.equal(200);
  });

  it('answers 503 OVERLOADED while the event loop is overloaded, and serves again once it is not', async () => {
    await start({ maxInFlight: 100 });
    loopOverloaded = true;
    await expectOverloaded(await fetch(`${app.url}/api/v1/slow`));
    expect(slow.started).to.equal(0);
    expect((await fetch(`${app.url}/health/live`)).status).to.equal(200);
    loopOverloaded = false;
    const admitted = fetch(`${app.url}/api/v1/slow`);
    await until(() => slow.started === 1);
    slow.release();
    expect((await admitted).status).to.equal(200);
  });

  it("reads nothing more from a refused client's connection for its Retry-After second", async () => {
    await start({ maxInFlight: 100 });
    loopOverloaded = true;
    const { port } = new URL(app.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const request = 'GET /health/live HTTP/1.1\r\nHost: portico\r\n\r\n';
    socket.write('GET /api/v1/slow HTTP/1.1\r\nHost: portico\r\n\r\n');
    await until(() => received.includes('OVERLOADED'));
    expect(received).to.match(/^HTTP\/1\.1 503 /);
    loopOverloaded = false;
    const sent = performance.now();
    socket.write(request);
    await until(() => (received.match(/HTTP\/1\.1 /g) ?? []).length === 2);
    const waited = performance.now() - sent;
    socket.destroy();
    // Its next request waited in the kernel's buffer, not in the event loop, then was served.
    expect(received).to.match(/HTTP\/1\.1 200 /);
    expect(waited).to.be.greaterThan(700);
  });
});
