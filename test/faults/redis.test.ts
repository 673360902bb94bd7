import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { Api } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { RedisProcess, waitFor } from '../support/faults.js';
import { silentLogger } from '../support/logger.js';

interface Report {
  status: string;
  checks: Record<string, { status: string }>;
}

/**
 * The fault suite, Redis part: the shared rate-limit store goes away and comes back. Redis is
 * not critical (the limiter fails open): requests go on, readiness is degraded but 200, and
 * once Redis is back the shared budget counts again, without a restart.
 */
describe('faults: Redis stops and comes back', function () {
  this.timeout(60_000);
  let redis: RedisProcess | undefined;
  let service: RunningService | undefined;
  let api: Api;

  before(async function () {
    if (!process.env.SVC_TEST_REDIS_URL && process.env.CI !== 'true') {
      console.log('      (skipped: the Redis fault suite runs with the Redis suites, SVC_TEST_REDIS_URL)');
      this.skip();
    }
    redis = await RedisProcess.create();
    service = await startService(
      testConfig({
        SVC_REDIS_URL: redis.url,
        SVC_RATE_LIMIT_STORE: 'redis',
        SVC_RATE_LIMIT_RATE: '1000-M',
        SVC_HEALTH_CHECK_TIMEOUT: '500ms',
      }),
      { logger: silentLogger() },
    );
    api = new Api(service.url);
  });

  after(async () => {
    await service?.stop();
    await redis?.kill();
  });

  const cacheStatus = async (): Promise<string | undefined> =>
    ((await api.get('/health')).body as Report).checks['cache']?.status;

  it('requests go on while it is down (readiness 200 degraded), and the shared budget counts again once it is back', async () => {
    await waitFor(async () => (await cacheStatus()) === 'up', 10_000, 'cache up');
    const first = await api.get('/api/v1/nothing');
    expect(first.headers.get('x-ratelimit-limit')).to.equal('1000');
    const before = Number(first.headers.get('x-ratelimit-remaining'));

    await redis!.kill();
    for (let i = 0; i < 5; i++) {
      const answer = await api.get('/api/v1/nothing');
      expect(answer.status).to.equal(404); // served: the limiter lets requests through
    }
    const ready = await api.get('/health/ready');
    expect(ready.status).to.equal(200);
    expect((ready.body as Report).status).to.equal('degraded');
    expect((ready.body as Report).checks['cache']?.status).to.equal('down');
    expect((ready.body as Report).checks['database']?.status).to.equal('up');

    await redis!.start(); // an empty Redis, as after a restart without persistence
    await waitFor(async () => (await cacheStatus()) === 'up', 15_000, 'cache up again');
    const counted: number[] = [];
    for (let i = 0; i < 3; i++)
      counted.push(Number((await api.get('/api/v1/nothing')).headers.get('x-ratelimit-remaining')));
    expect(counted[1]).to.equal(counted[0]! - 1);
    expect(counted[2]).to.equal(counted[1]! - 1);
    expect(counted[0]).to.be.at.least(before - 1); // a fresh budget in the fresh store
    expect((await api.get('/health/ready')).body).to.have.property('status', 'up');
  });
});
