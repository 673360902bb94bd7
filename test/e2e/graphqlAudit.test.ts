import { expect } from 'chai';
import { auditServer, type AuditResult } from 'graphql-http';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';

/** Runs graphql-http's own GraphQL-over-HTTP audit and asserts no requirement (error) or recommendation (warn) fails. */
async function expectAuditClean(url: string): Promise<AuditResult[]> {
  const results = await auditServer({ url });
  const failing = results.filter((r) => r.status === 'error' || r.status === 'warn');
  const report = failing.map((r) => `[${r.status}] ${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`).join('\n');
  expect(results.length, 'the audit ran no checks').to.be.greaterThan(40);
  expect(failing, `graphql-http audit failures at ${url}:\n${report}`).to.deep.equal([]);
  return results;
}

describe('graphql-http audit (GraphQL over HTTP compliance)', function () {
  this.timeout(60_000);
  let service: RunningService;
  before(async () => {
    service = await startService(
      testConfig({ SVC_API_MODE: 'both', SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }),
      {
        logger: silentLogger(),
      },
    );
  });
  after(async () => service.stop());

  it('no result with status error or warn at /graphql', async () => {
    const results = await expectAuditClean(`${service.url}/graphql`);
    expect(results.filter((r) => r.status === 'ok').length).to.be.greaterThan(40);
  });
});

describe('graphql-http audit in production mode, api.mode graphql, at a custom route', function () {
  this.timeout(60_000);
  let service: RunningService;
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
    service = await startService(
      testConfig({
        SVC_ENV: 'production',
        SVC_JWT_SECRET: 'an-audit-secret-that-is-32-bytes',
        SVC_SECRETS_ENCRYPTION_KEY: 'a production key for e-mailed links',
        SVC_STORAGE_SIGNING_SECRET: 'a production secret signing file links',
        SVC_MAIL_SMTP_URL: smtp.url,
        SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
        SVC_API_MODE: 'graphql',
        SVC_GRAPHQL_GENERAL_ROUTE: '/api/gql',
        // The audit's variables checks query `__type(name: $name)`, so they need introspection.
        SVC_GRAPHQL_INTROSPECTION: 'true',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
      }),
      { logger: silentLogger() },
    );
  });
  after(async () => {
    await service.stop();
    await smtp.close();
  });

  it('no result with status error or warn at /api/gql', async () => {
    await expectAuditClean(`${service.url}/api/gql`);
  });
});
