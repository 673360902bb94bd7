import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api, type Account } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { PgCluster, postgresBin, waitFor } from '../support/faults.js';
import { capturingLogger } from '../support/logger.js';
import { scrape, valueOf } from '../support/metrics.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

/**
 * The fault suite, PostgreSQL part: the service's own database server stopped and started
 * again, then frozen (SIGSTOP, as a hung host or a stalled disk does) and thawed. The service
 * must answer 503 at once (never hang for the request timeout, never 500), take itself out of
 * rotation (readiness 503), keep liveness up, and recover by itself.
 */
describe('faults: the PostgreSQL server stops or freezes', function () {
  this.timeout(90_000);
  let cluster: PgCluster | undefined;
  let service: RunningService | undefined;
  let api: Api;
  let moderator: Account;
  let logs: ReturnType<typeof capturingLogger>;

  before(async function () {
    if (!postgresBin()) {
      if (process.env.CI === 'true') throw new Error('CI must install PostgreSQL for the fault suite');
      console.log('      (skipped: the PostgreSQL fault suite needs the PostgreSQL server binaries)');
      this.skip();
    }
    cluster = await PgCluster.create();
    logs = capturingLogger();
    service = await startService(
      testConfig({
        SVC_DATABASE_URL: cluster.url,
        SVC_DATABASE_QUERY_TIMEOUT: '1s',
        SVC_HEALTH_CHECK_TIMEOUT: '500ms',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
      }),
      { logger: logs.logger },
    );
    api = new Api(service.url);
    moderator = await accountWithRole(service, api, 'moderator');
  });

  after(async () => {
    await cluster?.signal('SIGCONT').catch(() => undefined);
    await service?.stop();
    await cluster?.destroy();
  });

  const listProducts = () => api.get('/api/v1/products', { token: moderator.access_token });
  const createProduct = (name: string) =>
    api.post('/api/v1/products', { token: moderator.access_token, json: { ...PRODUCT_BODY, name, price: 1.5 } });

  async function expectUnavailable(answer: { status: number; body: unknown }): Promise<void> {
    // On a failure, say what the service logged as an internal error (its stack), not just the 500.
    const internal = () => JSON.stringify(logs.lines().filter((l) => Number(l.level) >= 50 && l.err !== undefined));
    expect(answer.status, answer.status === 500 ? internal() : undefined).to.equal(503);
    expect(answer.body).to.deep.equal({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'database unavailable' },
    });
  }

  async function healthy(): Promise<boolean> {
    const [list, ready] = await Promise.all([listProducts(), api.get('/health/ready')]);
    return list.status === 200 && ready.status === 200;
  }

  it('stopped: API calls answer 503 SERVICE_UNAVAILABLE, readiness 503, liveness 200; started again: it recovers by itself', async () => {
    expect((await createProduct('before the outage')).status).to.equal(201);
    await cluster!.stop();

    const unavailableBefore = valueOf(await scrape(service!.metricsUrl), 'database_errors_total', {
      kind: 'unavailable',
    });
    await expectUnavailable(await listProducts());
    await expectUnavailable(await createProduct('during the outage'));
    // Each failed call is counted once, as the database being unavailable.
    expect(
      valueOf(await scrape(service!.metricsUrl), 'database_errors_total', { kind: 'unavailable' }) - unavailableBefore,
    ).to.equal(2);
    const ready = await api.get('/health/ready');
    expect(ready.status).to.equal(503);
    expect(ready.body).to.have.nested.property('checks.database.status', 'down');
    expect(ready.body).to.have.property('status', 'down');
    expect((await api.get('/health/live')).status).to.equal(200);

    await cluster!.start();
    await waitFor(healthy, 15_000, 'recovery after the database came back');
    const list = await listProducts();
    expect((list.body as { data: { name: string }[] }).data.map((p) => p.name)).to.deep.equal(['before the outage']);
  });

  it('frozen: a call answers 503 within database.query_timeout (not the 30 s request timeout); thawed: it recovers', async () => {
    expect(await healthy()).to.equal(true);
    await cluster!.signal('SIGSTOP');
    try {
      const started = Date.now();
      const [read, write] = await Promise.all([listProducts(), createProduct('while frozen')]);
      const waited = Date.now() - started;
      await expectUnavailable(read);
      await expectUnavailable(write);
      expect(waited).to.be.below(5000); // bounded by the 1 s query timeout (plus the pool's), far below 30 s
      expect(valueOf(await scrape(service!.metricsUrl), 'database_errors_total', { kind: 'timeout' })).to.be.at.least(
        2,
      );

      const ready = await api.get('/health/ready');
      expect(ready.status).to.equal(503);
      expect(ready.body).to.have.nested.property('checks.database.status', 'down');
      expect((await api.get('/health/live')).status).to.equal(200);
    } finally {
      await cluster!.signal('SIGCONT');
    }
    // The connections that timed out were discarded, not handed out again: fresh ones serve.
    await waitFor(healthy, 15_000, 'recovery after the database was thawed');
    for (let i = 0; i < 20; i++) expect((await listProducts()).status).to.equal(200);
  });
});
