import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { Api, dataOf } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';

const POSTGRES = externalService('SVC_TEST_POSTGRES_URL');
const REPLICA = externalService('SVC_TEST_POSTGRES_REPLICA_URL');

/** The `replica` check with `database.replica_urls`: up beside a replica that answers, degraded (never down) without one. */
describe('the replica health check', function () {
  this.timeout(30_000);
  let service: RunningService | undefined;

  before(function () {
    if (!POSTGRES || !REPLICA) {
      console.log('      (skipped: needs SVC_TEST_POSTGRES_URL and SVC_TEST_POSTGRES_REPLICA_URL)');
      this.skip();
    }
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });

  const start = async (replicaUrl: string): Promise<Api> => {
    service = await startService(
      testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_DATABASE_URL: POSTGRES!, SVC_DATABASE_REPLICA_URLS: replicaUrl }),
      { logger: silentLogger() },
    );
    return new Api(service.url);
  };

  it('is up beside a replica that answers its probe', async () => {
    const answer = await (await start(REPLICA!)).get('/health/ready');
    const report = answer.body as { status: string; checks: Record<string, { status: string }> };
    expect(report.checks.replica).to.include({ status: 'up' });
    expect(answer.status).to.equal(200);
  });

  it('is degraded with its replica unreachable; readiness stays up and the reads go to the primary', async () => {
    const gone = new URL(REPLICA!);
    gone.port = '1';
    const api = await start(gone.toString());
    const answer = await api.get('/health/ready');
    const report = answer.body as { status: string; checks: Record<string, { status: string; message?: string }> };
    expect(report.checks.replica).to.deep.include({ status: 'degraded', message: 'replica 1 unreachable' });
    expect(report.status).to.equal('degraded');
    expect(answer.status).to.equal(200);
    const email = `replica-${Date.now()}@example.com`;
    const registered = await api.post('/api/v1/auth/register', {
      json: { email, password: 'password123', first_name: 'Re', last_name: 'Plica' },
    });
    const token = dataOf<{ access_token: string }>(registered, 201).access_token;
    const profile = await api.get('/api/v1/profile', { token });
    expect(dataOf<{ email: string }>(profile, 200).email).to.equal(email);
  });
});
