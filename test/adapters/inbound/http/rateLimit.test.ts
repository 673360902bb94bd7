import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import type { HttpAppOptions, RouteModule } from '../../../../src/adapters/inbound/http/app.js';
import { healthRoutes } from '../../../../src/adapters/inbound/http/routes/health.js';
import { SystemClock } from '../../../../src/adapters/outbound/system/SystemClock.js';
import { CheckHealth } from '../../../../src/application/health/CheckHealth.js';
import { HealthCheckRegistry } from '../../../../src/application/health/HealthCheckRegistry.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';
import { capturingLogger } from '../../../support/logger.js';

const LIMIT = 3;

const apiRoutes: RouteModule = (router) => {
  router.get('/api/v1/things', (ctx) => {
    ctx.body = { success: true, data: [] };
  });
  router.post('/api/v1/things', (ctx) => {
    ctx.status = 201;
    ctx.body = { success: true, data: ctx.request.body };
  });
};

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

function limiter(): RateLimiterMemory {
  return new RateLimiterMemory({ points: LIMIT, duration: 60 });
}

/** A store that is down: every consume rejects with an Error, never with a RateLimiterRes. */
class UnreachableLimiter extends RateLimiterMemory {
  calls = 0;
  override consume(): Promise<RateLimiterRes> {
    this.calls++;
    return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
  }
}

function expectRateHeaders(res: Response, remaining: number): void {
  expect(res.headers.get('x-ratelimit-limit')).to.equal(String(LIMIT));
  expect(res.headers.get('x-ratelimit-remaining')).to.equal(String(remaining));
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  expect(
    Number.isInteger(reset),
    `X-RateLimit-Reset is whole seconds, got ${res.headers.get('x-ratelimit-reset')}`,
  ).to.equal(true);
  expect(reset).to.be.greaterThan(0).and.at.most(60);
}

function expectNoRateHeaders(res: Response): void {
  expect(res.headers.get('x-ratelimit-limit')).to.equal(null);
  expect(res.headers.get('x-ratelimit-remaining')).to.equal(null);
  expect(res.headers.get('x-ratelimit-reset')).to.equal(null);
}

describe('HTTP adapter: rate limiting', () => {
  let app: RunningApp;
  const start = async (overrides: Partial<HttpAppOptions> = {}): Promise<void> => {
    app = await startHttpApp({ rateLimiter: limiter(), routes: [apiRoutes, health()], ...overrides });
  };
  afterEach(async () => {
    await app.close();
  });

  it('puts X-RateLimit-Limit, -Remaining and -Reset on every counted answer', async () => {
    await start();
    for (let remaining = LIMIT - 1; remaining >= 0; remaining--) {
      const res = await fetch(`${app.url}/api/v1/things`);
      expect(res.status).to.equal(200);
      expectRateHeaders(res, remaining);
    }
  });

  it('counts error answers too (404) and puts the headers on them', async () => {
    await start();
    const res = await fetch(`${app.url}/no/such/route`);
    expect(res.status).to.equal(404);
    expectRateHeaders(res, LIMIT - 1);
  });

  it('answers 429 RATE_LIMITED with Retry-After and the X-RateLimit headers past the limit', async () => {
    await start();
    for (let i = 0; i < LIMIT; i++) expect((await fetch(`${app.url}/api/v1/things`)).status).to.equal(200);
    const res = await fetch(`${app.url}/api/v1/things`);
    expect(res.status).to.equal(429);
    const body = (await res.json()) as { success: boolean; error: { code: string; message: string } };
    expect(body.success).to.equal(false);
    expect(body.error.code).to.equal('RATE_LIMITED');
    const retryAfter = res.headers.get('retry-after');
    expect(retryAfter).to.match(/^\d+$/);
    expect(Number(retryAfter)).to.be.greaterThan(0).and.at.most(60);
    expectRateHeaders(res, 0);
    // X-Request-ID is still there: the 429 is an ordinary answer of the chain.
    expect(res.headers.get('x-request-id')).to.not.equal(null);
  });

  it('keeps refusing while the window lasts, whatever the method', async () => {
    await start();
    for (let i = 0; i < LIMIT; i++) await fetch(`${app.url}/api/v1/things`);
    const post = await fetch(`${app.url}/api/v1/things`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect(post.status).to.equal(429);
    expect((await fetch(`${app.url}/api/v1/things`)).status).to.equal(429);
  });

  it('answers 429 before the body parser would answer 400', async () => {
    await start();
    for (let i = 0; i < LIMIT; i++) await fetch(`${app.url}/api/v1/things`);
    const res = await fetch(`${app.url}/api/v1/things`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{broken',
    });
    expect(res.status).to.equal(429);
  });

  for (const path of ['/health', '/health/ready', '/health/live']) {
    it(`never counts ${path}`, async () => {
      await start();
      for (let i = 0; i < LIMIT * 2; i++) {
        const res = await fetch(`${app.url}${path}`);
        expect(res.status).to.equal(200);
        expectNoRateHeaders(res);
      }
      const counted = await fetch(`${app.url}/api/v1/things`);
      expect(counted.status).to.equal(200);
      expectRateHeaders(counted, LIMIT - 1);
    });
  }

  it('still answers the health paths once the client is over the limit', async () => {
    await start();
    for (let i = 0; i < LIMIT; i++) await fetch(`${app.url}/api/v1/things`);
    expect((await fetch(`${app.url}/api/v1/things`)).status).to.equal(429);
    for (const path of ['/health', '/health/ready', '/health/live']) {
      expect((await fetch(`${app.url}${path}`)).status, path).to.equal(200);
    }
  });

  it('never counts CORS preflights', async () => {
    await start();
    for (let i = 0; i < LIMIT * 2; i++) {
      const res = await fetch(`${app.url}/api/v1/things`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST' },
      });
      expect(res.status).to.equal(204);
      expectNoRateHeaders(res);
    }
    const counted = await fetch(`${app.url}/api/v1/things`);
    expect(counted.status).to.equal(200);
    expectRateHeaders(counted, LIMIT - 1);
  });

  it('answers CORS preflights even once the client is over the limit', async () => {
    await start();
    for (let i = 0; i < LIMIT; i++) await fetch(`${app.url}/api/v1/things`);
    const res = await fetch(`${app.url}/api/v1/things`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET' },
    });
    expect(res.status).to.equal(204);
  });

  describe('per client IP', () => {
    const from = (ip: string): RequestInit => ({ headers: { 'X-Forwarded-For': ip } });

    it('with trustProxy, gives each X-Forwarded-For client its own budget', async () => {
      await start({ trustProxy: true });
      for (let i = 0; i < LIMIT; i++)
        expect((await fetch(`${app.url}/api/v1/things`, from('203.0.113.7'))).status).to.equal(200);
      expect((await fetch(`${app.url}/api/v1/things`, from('203.0.113.7'))).status).to.equal(429);
      const other = await fetch(`${app.url}/api/v1/things`, from('198.51.100.23'));
      expect(other.status).to.equal(200);
      expectRateHeaders(other, LIMIT - 1);
      expect(
        (await fetch(`${app.url}/api/v1/things`, from('203.0.113.7'))).status,
        'the first client stays limited',
      ).to.equal(429);
    });

    it('with trustProxy, takes the entry the proxy appended: a client writing its own X-Forwarded-For still hits the limit', async () => {
      await start({ trustProxy: true });
      // What the proxy forwards when the client sends `X-Forwarded-For: <anything>`: `<anything>, <client>`.
      const spoofing = () => from(`198.51.100.${Math.floor(Math.random() * 250)}, ${randomUUID()}, 203.0.113.7`);
      for (let i = 0; i < LIMIT; i++) {
        const res = await fetch(`${app.url}/api/v1/things`, spoofing());
        expect(res.status).to.equal(200);
        expectRateHeaders(res, LIMIT - 1 - i);
      }
      expect((await fetch(`${app.url}/api/v1/things`, spoofing())).status).to.equal(429);
      expect(
        (await fetch(`${app.url}/api/v1/things`, from('203.0.113.7'))).status,
        'the same client without a header of its own',
      ).to.equal(429);
      expect(
        (await fetch(`${app.url}/api/v1/things`, from('203.0.113.7, 198.51.100.23'))).status,
        'another client',
      ).to.equal(200);
    });

    it('with trustProxy and trustProxyHops 2, takes the second entry from the right', async () => {
      await start({ trustProxy: true, trustProxyHops: 2 });
      // `<client-written>, <client>, <first proxy>`: the outer proxy wrote the client, the inner one the outer proxy.
      const spoofing = (proxy: string) => from(`${randomUUID()}, 203.0.113.7, ${proxy}`);
      for (let i = 0; i < LIMIT; i++)
        expect((await fetch(`${app.url}/api/v1/things`, spoofing(`10.0.0.${i + 1}`))).status).to.equal(200);
      expect((await fetch(`${app.url}/api/v1/things`, spoofing('10.0.0.9'))).status).to.equal(429);
      expect(
        (await fetch(`${app.url}/api/v1/things`, from('203.0.113.8, 10.0.0.1'))).status,
        'another client, same proxy',
      ).to.equal(200);
    });

    it('without trustProxy, ignores X-Forwarded-For (one budget for the connection address)', async () => {
      await start({ trustProxy: false });
      for (let i = 0; i < LIMIT; i++) {
        const res = await fetch(`${app.url}/api/v1/things`, from(`203.0.113.${i + 1}`));
        expect(res.status).to.equal(200);
        expectRateHeaders(res, LIMIT - 1 - i);
      }
      const spoofed = await fetch(`${app.url}/api/v1/things`, from('198.51.100.99'));
      expect(spoofed.status).to.equal(429);
    });
  });

  describe('when the store is unreachable', () => {
    it('lets requests through (fails open) and warns', async () => {
      const captured = capturingLogger();
      const down = new UnreachableLimiter({ points: LIMIT, duration: 60 });
      await start({ rateLimiter: down, logger: captured.logger });
      for (let i = 0; i < LIMIT * 2; i++) {
        const res = await fetch(`${app.url}/api/v1/things`);
        expect(res.status).to.equal(200);
      }
      const post = await fetch(`${app.url}/api/v1/things`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"a":1}',
      });
      expect(post.status).to.equal(201);
      expect(down.calls, 'the limiter was asked each time').to.equal(LIMIT * 2 + 1);
      const warnings = captured.lines().filter((l) => l.level === 40 && String(l.msg).includes('rate limit'));
      expect(warnings.length, 'a warning, not one per request').to.be.within(1, 2);
      expect(
        captured
          .lines()
          .filter((l) => l.msg === 'request')
          .every((l) => l.status !== 500),
      ).to.equal(true);
    });
  });
});
