import { AsyncLocalStorage } from 'node:async_hooks';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api, dataOf, register } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';

/**
 * The first `run` (or `enterWith`) of any AsyncLocalStorage turns on Node's promise hooks for the
 * rest of the process, and every promise of every request then pays for context tracking (about a
 * twentieth of an authenticated GET's CPU). With tracing off nothing the service does may start
 * one: not start-up (migrations, seeding the access rules), not the guarded writes that run in
 * transactions (removing a rule, demoting an admin).
 */
describe('no AsyncLocalStorage context tracking while tracing is off', function () {
  this.timeout(60_000);
  const calls: string[] = [];
  const originals = { run: AsyncLocalStorage.prototype.run, enterWith: AsyncLocalStorage.prototype.enterWith };

  before(() => {
    for (const name of ['run', 'enterWith'] as const) {
      const original = originals[name] as (...args: unknown[]) => unknown;
      (AsyncLocalStorage.prototype as unknown as Record<string, unknown>)[name] = function (
        this: unknown,
        ...args: unknown[]
      ) {
        calls.push(`${name}: ${new Error().stack?.split('\n').slice(2, 5).join(' / ')}`);
        return original.apply(this, args);
      };
    }
  });
  after(() => Object.assign(AsyncLocalStorage.prototype, originals));

  const postgres = externalService('SVC_TEST_POSTGRES_URL');
  const targets = [
    { name: 'SQLite', url: 'sqlite::memory:' },
    ...(postgres ? [{ name: 'PostgreSQL', url: postgres }] : []),
  ];
  for (const target of targets) {
    it(`starts, serves and writes through guarded transactions on ${target.name} without one`, async () => {
      calls.length = 0;
      const service: RunningService = await startService(
        testConfig({ SVC_DATABASE_URL: target.url, SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }),
        { logger: silentLogger() },
      );
      try {
        const api = new Api(service.url);
        const admin = await accountWithRole(service, api, 'admin');
        const other = await accountWithRole(service, api, 'admin');
        const user = await register(api);
        dataOf(await api.get('/api/v1/profile', { token: user.access_token }));
        const rule = { role: 'user', path: '/api/v1/reports', action: 'GET' };
        expect((await api.post('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
          201,
        );
        expect((await api.delete('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
          204,
        );
        dataOf(
          await api.put(`/api/v1/admin/users/${other.user.id}`, { token: admin.access_token, json: { role: 'user' } }),
        );
        expect((await api.post('/api/v1/auth/logout-all', { token: user.access_token })).status).to.equal(204);
      } finally {
        await service.stop();
      }
      expect(calls, calls.join('\n')).to.deep.equal([]);
    });
  }
});
