import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';
import { runEntry } from '../support/process.js';

const REDIS_URL = externalService('SVC_TEST_REDIS_URL');

describe('access policy changes across instances (Redis)', function () {
  this.timeout(30_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-sync-'));
  const services: RunningService[] = [];

  before(function () {
    if (!REDIS_URL) {
      console.log('      (skipped: needs SVC_TEST_REDIS_URL)');
      this.skip();
    }
  });

  after(async () => {
    await Promise.all(services.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('reach every other instance within one second', async () => {
    const env = {
      SVC_DATABASE_URL: `sqlite:${join(dir, 'shared.sqlite')}`,
      SVC_REDIS_URL: REDIS_URL!,
      SVC_AUTH_BCRYPT_COST: '4',
    };
    services.push(await startService(testConfig(env), { logger: silentLogger() }));
    services.push(await startService(testConfig(env), { logger: silentLogger() }));
    const [a, b] = services as [RunningService, RunningService];
    const policyA = a.container.get(TOKENS.AccessPolicy);
    const policyB = b.container.get(TOKENS.AccessPolicy);
    const rule = { role: 'user', path: '/api/v1/admin/users', action: 'GET', scope: 'all' } as const;

    expect(await policyB.enforce('user', rule.path, 'GET')).to.equal(false);
    expect(await policyA.add(rule)).to.equal(true);
    const started = Date.now();
    while (!(await policyB.enforce('user', rule.path, 'GET'))) {
      if (Date.now() - started > 1000) expect.fail('the rule did not reach the other instance within one second');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await policyB.list()).policies).to.deep.include(rule);

    expect(await policyB.remove(rule)).to.equal(true);
    const removed = Date.now();
    while (await policyA.enforce('user', rule.path, 'GET')) {
      if (Date.now() - removed > 1000) expect.fail('the removal did not reach the other instance within one second');
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('reach every running instance from `policies:reset` within one second', async () => {
    const databaseUrl = `sqlite:${join(dir, 'reset.sqlite')}`;
    const env = { SVC_DATABASE_URL: databaseUrl, SVC_REDIS_URL: REDIS_URL!, SVC_AUTH_BCRYPT_COST: '4' };
    const running = await startService(testConfig(env), { logger: silentLogger() });
    services.push(running);
    const policy = running.container.get(TOKENS.AccessPolicy);
    const intruder = { role: 'intruder', path: '/api/v1/admin/*', action: '.*' };
    expect(await policy.add(intruder)).to.equal(true);

    const reset = await runEntry('src/main/cli.ts', ['policies:reset'], { ...env, SVC_LOG_LEVEL: 'silent' });
    expect(reset.stderr).to.equal('');
    expect(reset.code).to.equal(0);
    expect(reset.stdout).to.contain('  removed: p, intruder, /api/v1/admin/*, .*\n');
    expect(reset.stdout).to.match(/\ntold [1-9]\d* running instance\(s\) through Redis to reload the rules\n$/);

    const started = Date.now();
    while (await policy.enforce('intruder', '/api/v1/admin/policies', 'POST')) {
      if (Date.now() - started > 1000) expect.fail('the reset did not reach the running instance within one second');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await policy.list()).policies).not.to.deep.include(intruder);
  });
});
