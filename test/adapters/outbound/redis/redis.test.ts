import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { CacheHealthCheck } from '../../../../src/adapters/outbound/health/CacheHealthCheck.js';
import { startService, type RunningService } from '../../../../src/main/wiring/service.js';
import { externalService } from '../../../support/env.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';
import { silentLogger } from '../../../support/logger.js';
import { freePort } from '../../../support/ports.js';
import { testConfig } from '../../../support/config.js';

const REDIS_URL = externalService('SVC_TEST_REDIS_URL');

async function waitFor(predicate: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}

describe('Redis', function () {
  before(function () {
    if (!REDIS_URL) {
      console.log('      (skipped: the Redis suite needs SVC_TEST_REDIS_URL)');
      this.skip();
    }
  });

  describe('CacheHealthCheck', () => {
    it('is up when Redis answers PING, down at once when the client is not connected', async () => {
      const redis = new Redis(REDIS_URL!, { enableOfflineQueue: false });
      try {
        await waitFor(() => redis.status === 'ready');
        expect(await new CacheHealthCheck(redis).check()).to.deep.equal({ status: 'up' });
      } finally {
        redis.disconnect();
      }
      await waitFor(() => redis.status === 'end');
      expect(await new CacheHealthCheck(redis).check()).to.deep.equal({
        status: 'down',
        message: 'cache not connected',
      });
    });
  });

  describe('the redis rate limit store', () => {
    const apps: RunningApp[] = [];
    const clients: Redis[] = [];
    after(async () => {
      await Promise.all(apps.map((a) => a.close()));
      clients.forEach((c) => c.disconnect());
    });

    it('is one budget shared by every instance', async () => {
      const keyPrefix = `portico:test:${randomUUID()}`;
      for (let i = 0; i < 2; i++) {
        const redis = new Redis(REDIS_URL!, { enableOfflineQueue: false });
        clients.push(redis);
        await waitFor(() => redis.status === 'ready');
        const limiter = new RateLimiterRedis({
          storeClient: redis,
          points: 3,
          duration: 60,
          keyPrefix,
          rejectIfRedisNotReady: true,
        });
        apps.push(await startHttpApp({ rateLimiter: limiter }));
      }
      const [a, b] = apps as [RunningApp, RunningApp];
      const remaining: string[] = [];
      for (const url of [a.url, b.url, a.url]) {
        const res = await fetch(`${url}/anything`);
        expect(res.status).to.equal(404);
        remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
      }
      expect(remaining).to.deep.equal(['2', '1', '0']);
      const limited = await fetch(`${b.url}/anything`);
      expect(limited.status).to.equal(429);
      expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(((await limited.json()) as { error: { code: string } }).error.code).to.equal('RATE_LIMITED');
    });
  });

  describe('when Redis stops mid-run', () => {
    let redisServer: ChildProcess | undefined;
    let service: RunningService | undefined;

    after(async () => {
      await service?.stop();
      redisServer?.kill('SIGKILL');
    });

    it('keeps serving requests (limiter fails open) and reports `cache` down', async () => {
      const port = await freePort();
      redisServer = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      const probe = new Redis(`redis://127.0.0.1:${port}`, {
        lazyConnect: true,
        retryStrategy: () => 50,
        maxRetriesPerRequest: 0,
      });
      probe.on('error', () => undefined);
      await waitFor(async () => (await probe.ping().catch(() => '')) === 'PONG');
      probe.disconnect();

      service = await startService(
        testConfig({
          SVC_REDIS_URL: `redis://127.0.0.1:${port}`,
          SVC_RATE_LIMIT_STORE: 'redis',
          SVC_HEALTH_CHECK_TIMEOUT: '500ms',
        }),
        { logger: silentLogger() },
      );
      const url = service.url;
      await waitFor(
        async () =>
          ((await (await fetch(`${url}/health`)).json()) as { checks: { cache: { status: string } } }).checks.cache
            .status === 'up',
      );
      const counted = await fetch(`${url}/nothing-here`);
      expect(counted.status).to.equal(404);
      expect(counted.headers.get('x-ratelimit-limit')).to.equal('100');

      redisServer.kill('SIGKILL');
      await new Promise((resolve) => redisServer!.once('exit', resolve));

      const served = await fetch(`${url}/nothing-here`);
      expect(served.status).to.equal(404);
      expect(((await served.json()) as { error: { code: string } }).error.code).to.equal('NOT_FOUND');

      const health = await fetch(`${url}/health`);
      expect(health.status).to.equal(200);
      const report = (await health.json()) as {
        status: string;
        checks: Record<string, { status: string; message?: string }>;
      };
      expect(report.checks.cache!.status).to.equal('down');
      expect(report.checks.database!.status).to.equal('up');
      expect(report.status).to.equal('degraded');

      const ready = await fetch(`${url}/health/ready`);
      expect(ready.status).to.equal(200);
      expect(((await ready.json()) as { status: string }).status).to.equal('degraded');
    });
  });
});
