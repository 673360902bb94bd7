import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { Api, dataOf } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';

describe('when the database cannot be reached', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-down-'));
  let service: RunningService;
  let token: string;
  let api: Api;

  before(async () => {
    service = await startService(
      testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_DATABASE_URL: `sqlite:${join(dir, 'down.sqlite')}` }),
      { logger: silentLogger() },
    );
    api = new Api(service.url);
    const registered = await api.post('/api/v1/auth/register', {
      json: { email: 'down@example.com', password: 'password123', first_name: 'D', last_name: 'Own' },
    });
    token = dataOf<{ access_token: string }>(registered, 201).access_token;
    await service.database.orm.close(true); // the connection pool is gone: nothing can reach the database
  });

  after(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 SERVICE_UNAVAILABLE (never 500) on routes that need it', async () => {
    const answers = [
      await api.get('/api/v1/products', { token }),
      await api.post('/api/v1/auth/login', { json: { email: 'down@example.com', password: 'password123' } }),
    ];
    for (const answer of answers) {
      expect(answer.status).to.equal(503);
      expect(answer.body).to.deep.equal({
        success: false,
        error: { code: 'SERVICE_UNAVAILABLE', message: 'database unavailable' },
      });
    }
  });

  it('reports the database down on readiness, and readiness down (503): the database is critical', async () => {
    const answer = await api.get('/health/ready');
    const report = answer.body as { status: string; checks: { database: { status: string } } };
    expect(report.checks.database.status).to.equal('down');
    expect(report.status).to.equal('down');
    expect(answer.status).to.equal(503);
  });

  it('liveness does not depend on the database', async () => {
    const answer = await api.get('/health/live');
    expect(answer.status).to.equal(200);
  });
});

describe('readiness with HTTP checks (README: Health: critical per entry)', () => {
  const unreachable = 'http://127.0.0.1:9/health'; // the discard port: nothing listens there

  async function readiness(
    critical: boolean | undefined,
  ): Promise<{ status: number; report: { status: string; checks: Record<string, { status: string }> } }> {
    const entry = {
      name: 'search',
      url: unreachable,
      timeout: '500ms',
      ...(critical === undefined ? {} : { critical }),
    };
    const service = await startService(testConfig({ SVC_HEALTH_HTTP: JSON.stringify([entry]) }), {
      logger: silentLogger(),
    });
    try {
      const answer = await new Api(service.url).get('/health/ready');
      return {
        status: answer.status,
        report: answer.body as { status: string; checks: Record<string, { status: string }> },
      };
    } finally {
      await service.stop();
    }
  }

  it('a critical HTTP check that is down makes readiness 503 down', async () => {
    const { status, report } = await readiness(true);
    expect(report.checks['search']?.status).to.equal('down');
    expect(report.status).to.equal('down');
    expect(status).to.equal(503);
  });

  it('a non-critical one (the default) makes it 200 degraded', async () => {
    for (const critical of [false, undefined]) {
      const { status, report } = await readiness(critical);
      expect(report.checks['search']?.status).to.equal('down');
      expect(report.status).to.equal('degraded');
      expect(status).to.equal(200);
    }
  });
});
