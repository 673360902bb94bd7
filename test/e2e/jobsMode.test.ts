import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { Api } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';

/**
 * jobs.mode (docs/jobs.md): a web tier that only stores jobs and a worker that only runs them (and
 * serves only the health paths), on one database — the account mail a request on the web tier asked
 * for is sent by the worker, after the web tier answered.
 */
describe('jobs.mode: a web tier stores the jobs, a worker runs them', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-jobs-mode-'));
  let smtp: TestSmtpServer;
  const started: RunningService[] = [];
  const start = async (mode: 'web' | 'worker') => {
    const service = await startService(
      testConfig({
        SVC_DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}`,
        SVC_JOBS_MODE: mode,
        SVC_MAIL_SMTP_URL: smtp.url,
        SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
        SVC_METRICS_ENABLED: 'false',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_AUTH_BCRYPT_COST: '4',
      }),
      { logger: silentLogger() },
    );
    started.push(service);
    return service;
  };

  before(async () => {
    smtp = await startSmtpServer();
  });
  after(async () => {
    for (const service of started) await service.stop();
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends nothing from the web tier; the worker sends the mail the web tier stored; the worker serves only health', async () => {
    const web = await start('web');
    const api = new Api(web.url);
    const email = `jobs-mode-${Date.now()}@example.com`;
    const registered = await api.post('/api/v1/auth/register', {
      json: { email, password: 'correct horse battery', first_name: 'Ada', last_name: 'Lovelace' },
    });
    expect(registered.status, registered.text).to.equal(201);
    expect((await api.post('/api/v1/auth/password/forgot', { json: { email } })).status).to.equal(202);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(smtp.messages.filter((m) => m.to.includes(email))).to.deep.equal([]);
    // (By name: tokens.purge may be waiting too, fired at start within the first minute of an hour.)
    const admin = web.container.get(TOKENS.JobAdmin);
    const waiting = await admin.list({ state: 'waiting', name: 'account.link', page: 1, perPage: 10 });
    expect(waiting.total).to.equal(2);
    expect((await admin.list({ state: 'completed', page: 1, perPage: 10 })).total).to.equal(0);

    const worker = await start('worker');
    const reset = await smtp.waitFor((m) => m.to.includes(email) && /reset/i.test(m.subject));
    expect(reset.text).to.include('https://app.example.com');
    await smtp.waitFor((m) => m.to.includes(email) && /confirm your e-mail/i.test(m.subject));
    const workerApi = new Api(worker.url);
    expect((await workerApi.get('/health/live')).status).to.equal(200);
    // Not the API document's answer: the worker serves no API at all.
    const forgot = await fetch(`${worker.url}/api/v1/auth/password/forgot`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    expect(forgot.status).to.equal(404);
  });
});
