import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { SEED_INHERITANCE, SEED_POLICIES } from '../support/seedPolicy.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import {
  accountWithRole,
  Api,
  dataOf,
  decodeJwt,
  expectError,
  expectInvalidFields,
  expectUnauthorized,
  expectValidation,
  login,
  refresh,
  register,
  uniqueEmail,
  type Account,
  type ApiResponse,
  type UserJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { runEntry, type Finished } from '../support/process.js';

interface PageMeta {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

interface Rule {
  role: string;
  path: string;
  action: string;
  scope?: string;
}

interface Policies {
  policies: Rule[];
  inheritance: { role: string; parent: string }[];
}

/** The rules of policy/policy.csv (docs/access-rules.md). */
const SEED_RULES: Rule[] = [...SEED_POLICIES];

function listOf(response: ApiResponse): { users: UserJson[]; meta: PageMeta } {
  expect(response.status, response.text).to.equal(200);
  const body = response.body as { success: boolean; data: UserJson[]; meta: PageMeta };
  expect(body.success).to.equal(true);
  expect(Object.keys(body.meta).sort()).to.deep.equal(['page', 'per_page', 'total', 'total_pages']);
  return { users: body.data, meta: body.meta };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('administration (end to end)', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;
  let admin: Account;

  before(async () => {
    service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    api = new Api(service.url);
    admin = await accountWithRole(service, api, 'admin');
  });
  after(async () => service.stop());

  const asAdmin = (method: string, path: string, json?: unknown) =>
    api.send(method, path, { token: admin.access_token, ...(json !== undefined ? { json } : {}) });

  describe('GET /api/v1/admin/users', () => {
    // Three users sharing a tag in their e-mails, created in the order a, b, c.
    const tag = `zt${randomUUID().slice(0, 6)}`;
    let a: UserJson;
    let b: UserJson;
    let c: UserJson;
    const list = (query: string) => asAdmin('GET', `/api/v1/admin/users?q=${tag}&${query}`);
    const ids = (users: UserJson[]) => users.map((u) => u.id);

    before(async () => {
      a = (await register(api, { email: `${tag}-c@example.com`, first_name: 'Bravo', last_name: 'Yankee' })).user;
      await sleep(5);
      b = (await register(api, { email: `${tag}-a@example.com`, first_name: 'Charlie', last_name: 'Xray' })).user;
      await sleep(5);
      c = (await register(api, { email: `${tag}-b@example.com`, first_name: 'Alpha', last_name: 'Zulu' })).user;
    });

    it('answers 200 with users and meta {page, per_page, total, total_pages}, newest first by default', async () => {
      const { users, meta } = listOf(await list(''));
      expect(meta).to.deep.equal({ page: 1, per_page: 20, total: 3, total_pages: 1 });
      expect(users).to.deep.equal([c, b, a]);
      const everyone = listOf(await asAdmin('GET', '/api/v1/admin/users?per_page=100'));
      expect(everyone.meta.total).to.be.at.least(4);
      expect(ids(everyone.users)).to.include.members([admin.user.id, a.id, b.id, c.id]);
      expect(everyone.users.every((u) => Object.keys(u).length === 8)).to.equal(true);
    });

    for (const [sort, ascending] of [
      ['email', () => [b, c, a]],
      ['first_name', () => [c, a, b]],
      ['last_name', () => [b, a, c]],
      ['created_at', () => [a, b, c]],
    ] as const) {
      it(`sorts by ${sort}, asc and desc, in any case`, async () => {
        expect(ids(listOf(await list(`sort=${sort}&order=asc`)).users)).to.deep.equal(ids(ascending()));
        expect(ids(listOf(await list(`sort=${sort}&order=ASC`)).users)).to.deep.equal(ids(ascending()));
        expect(ids(listOf(await list(`sort=${sort}&order=desc`)).users)).to.deep.equal(ids(ascending()).reverse());
        expect(ids(listOf(await list(`sort=${sort}&order=Desc`)).users)).to.deep.equal(ids(ascending()).reverse());
        // The default order is desc.
        expect(ids(listOf(await list(`sort=${sort}`)).users)).to.deep.equal(ids(ascending()).reverse());
      });
    }

    it('pages: per_page, page, total_pages = ceil(total / per_page), an empty page past the end', async () => {
      const first = listOf(await list('sort=email&order=asc&per_page=2'));
      expect(first.meta).to.deep.equal({ page: 1, per_page: 2, total: 3, total_pages: 2 });
      expect(ids(first.users)).to.deep.equal([b.id, c.id]);
      const second = listOf(await list('sort=email&order=asc&per_page=2&page=2'));
      expect(second.meta).to.deep.equal({ page: 2, per_page: 2, total: 3, total_pages: 2 });
      expect(ids(second.users)).to.deep.equal([a.id]);
      const past = listOf(await list('sort=email&order=asc&per_page=2&page=3'));
      expect(past.meta).to.deep.equal({ page: 3, per_page: 2, total: 3, total_pages: 2 });
      expect(past.users).to.deep.equal([]);
      const none = listOf(await asAdmin('GET', `/api/v1/admin/users?q=${randomUUID()}`));
      expect(none.meta).to.deep.equal({ page: 1, per_page: 20, total: 0, total_pages: 0 });
    });

    it('filters with q on e-mail, first name and last name, case-insensitively', async () => {
      const mark = `qm${randomUUID().slice(0, 6)}`;
      const byEmail = (await register(api, { email: `${mark}@example.com` })).user;
      const byFirst = (await register(api, { first_name: `First${mark}` })).user;
      const byLast = (await register(api, { last_name: `${mark}Last` })).user;
      const { users, meta } = listOf(
        await asAdmin('GET', `/api/v1/admin/users?q=${mark.toUpperCase()}&sort=created_at&order=asc`),
      );
      expect(meta.total).to.equal(3);
      expect(ids(users)).to.deep.equal([byEmail.id, byFirst.id, byLast.id]);
      expect(
        listOf(await asAdmin('GET', `/api/v1/admin/users?q=${encodeURIComponent(`  first${mark} `)}`)).users,
      ).to.deep.equal([byFirst]);
    });

    it('takes q literally: % and _ are not wildcards', async () => {
      expect(listOf(await asAdmin('GET', '/api/v1/admin/users?q=%25')).meta.total).to.equal(0);
      expect(listOf(await asAdmin('GET', '/api/v1/admin/users?q=_')).meta.total).to.equal(0);
    });

    it('answers bad page, per_page, sort or order with 400 naming each parameter', async () => {
      expectValidation(await asAdmin('GET', '/api/v1/admin/users?page=0&per_page=101&sort=password&order=up'), [
        { field: 'page', message: 'must be an integer from 1 to 999999999' },
        { field: 'per_page', message: 'must be an integer from 1 to 100' },
        { field: 'sort', message: 'must be one of email, first_name, last_name, created_at' },
        { field: 'order', message: 'must be asc or desc' },
      ]);
      for (const [query, field] of [
        ['page=abc', 'page'],
        ['page=-1', 'page'],
        ['page=1.5', 'page'],
        ['per_page=0', 'per_page'],
        ['per_page=x', 'per_page'],
        ['sort=updated_at', 'sort'],
        ['sort=EMAIL', 'sort'],
        ['order=ascending', 'order'],
        [`q=${'q'.repeat(101)}`, 'q'],
      ] as const) {
        expectInvalidFields(await asAdmin('GET', `/api/v1/admin/users?${query}`), [field]);
      }
      expect(listOf(await asAdmin('GET', '/api/v1/admin/users?per_page=100&page=1')).meta.per_page).to.equal(100);
    });
  });

  describe('GET /api/v1/admin/users/{id}', () => {
    it('answers 200 with the user', async () => {
      const account = await register(api);
      expect(dataOf<UserJson>(await asAdmin('GET', `/api/v1/admin/users/${account.user.id}`))).to.deep.equal(
        account.user,
      );
    });

    it('answers 404 "User not found" with detail "id: <id>" for an unknown or invalid id', async () => {
      const unknown = randomUUID();
      expectError(await asAdmin('GET', `/api/v1/admin/users/${unknown}`), 404, 'NOT_FOUND', 'User not found', {
        detail: `id: ${unknown}`,
      });
      expectError(await asAdmin('GET', '/api/v1/admin/users/not-a-uuid'), 404, 'NOT_FOUND', 'User not found', {
        detail: 'id: not-a-uuid',
      });
      expectError(await asAdmin('DELETE', '/api/v1/admin/users/a%00b'), 404, 'NOT_FOUND', 'User not found', {
        detail: 'id: a\u0000b',
      });
      expectError(await asAdmin('GET', '/api/v1/admin/users?q=a%00b'), 400, 'VALIDATION_ERROR', 'validation failed', {
        fields: [{ field: 'q', message: 'must not contain NUL characters' }],
      });
    });
  });

  describe('PUT /api/v1/admin/users/{id}', () => {
    it('changes the role (200), and nothing else the body says', async () => {
      const account = await register(api);
      await sleep(5);
      const updated = dataOf<UserJson>(
        await asAdmin('PUT', `/api/v1/admin/users/${account.user.id}`, {
          role: 'moderator',
          email: uniqueEmail(),
          first_name: 'Hacked',
        }),
      );
      expect(updated).to.deep.equal({ ...account.user, role: 'moderator', updated_at: updated.updated_at });
      expect(Date.parse(updated.updated_at)).to.be.greaterThan(Date.parse(account.user.updated_at));
      expect(dataOf<UserJson>(await asAdmin('GET', `/api/v1/admin/users/${account.user.id}`))).to.deep.equal(updated);
    });

    it('reaches RBAC at once, for the token issued before too (its role claim is only informational)', async () => {
      const account = await register(api);
      // A rule only moderators have, so the role in the token is visible from outside.
      const probe = { role: 'moderator', path: '/api/v1/admin/users/{id}', action: 'GET' };
      expect((await asAdmin('POST', '/api/v1/admin/policies', probe)).status).to.equal(201);
      try {
        const target = `/api/v1/admin/users/${account.user.id}`;
        expectError(await api.get(target, { token: account.access_token }), 403, 'FORBIDDEN', 'forbidden');
        dataOf<UserJson>(await asAdmin('PUT', target, { role: 'moderator' }));

        // Same token, same role claim, the new role.
        expect(decodeJwt(account.access_token).payload.role).to.equal('user');
        expect(dataOf<UserJson>(await api.get(target, { token: account.access_token })).role).to.equal('moderator');

        const refreshed = await refresh(api, account.refresh_token);
        expect(decodeJwt(refreshed.access_token).payload.role).to.equal('moderator');
        expect(dataOf<UserJson>(await api.get(target, { token: refreshed.access_token })).role).to.equal('moderator');
        // A moderator is still no admin.
        expectError(
          await api.get('/api/v1/admin/users', { token: refreshed.access_token }),
          403,
          'FORBIDDEN',
          'forbidden',
        );

        const again = await login(api, account.user.email, account.password);
        expect(again.user.role).to.equal('moderator');
        expect(decodeJwt(again.access_token).payload.role).to.equal('moderator');
        expect((await api.get(target, { token: again.access_token })).status).to.equal(200);
      } finally {
        expect((await asAdmin('DELETE', '/api/v1/admin/policies', probe)).status).to.equal(204);
      }
    });

    it('answers a role the policy does not know with 400 on role, and a malformed or missing one too', async () => {
      const account = await register(api);
      const target = `/api/v1/admin/users/${account.user.id}`;
      expectValidation(await asAdmin('PUT', target, { role: 'superuser' }), [
        { field: 'role', message: 'is not a role the access policy knows' },
      ]);
      expectValidation(await asAdmin('PUT', target, { role: 'Admin' }), [
        { field: 'role', message: 'must be a role name (lower-case letters, digits, _ and -)' },
      ]);
      expectValidation(await asAdmin('PUT', target, { role: 7 }), [
        { field: 'role', message: 'must be a role name (lower-case letters, digits, _ and -)' },
      ]);
      expectValidation(await asAdmin('PUT', target, {}), [{ field: 'role', message: 'is required' }]);
      expect(dataOf<UserJson>(await asAdmin('GET', target)).role).to.equal('user');
    });

    it('accepts a role the policy learnt at run time', async () => {
      const account = await register(api);
      const target = `/api/v1/admin/users/${account.user.id}`;
      const rule = { role: 'auditor', path: '/api/v1/admin/users', action: 'GET' };
      expectValidation(await asAdmin('PUT', target, { role: 'auditor' }), [
        { field: 'role', message: 'is not a role the access policy knows' },
      ]);
      expect((await asAdmin('POST', '/api/v1/admin/policies', rule)).status).to.equal(201);
      try {
        expect(dataOf<UserJson>(await asAdmin('PUT', target, { role: 'auditor' })).role).to.equal('auditor');
        const auditor = await login(api, account.user.email, account.password);
        expect((await api.get('/api/v1/admin/users', { token: auditor.access_token })).status).to.equal(200);
        expectError(await api.get(target, { token: auditor.access_token }), 403, 'FORBIDDEN', 'forbidden');
      } finally {
        expect((await asAdmin('DELETE', '/api/v1/admin/policies', rule)).status).to.equal(204);
      }
    });

    it('answers 404 for an unknown user', async () => {
      const unknown = randomUUID();
      expectError(
        await asAdmin('PUT', `/api/v1/admin/users/${unknown}`, { role: 'moderator' }),
        404,
        'NOT_FOUND',
        'User not found',
        { detail: `id: ${unknown}` },
      );
    });

    it('refuses to let an admin demote themselves (409 CONFLICT), and keeps them admin', async () => {
      for (const role of ['user', 'moderator']) {
        expectError(
          await asAdmin('PUT', `/api/v1/admin/users/${admin.user.id}`, { role }),
          409,
          'CONFLICT',
          'you cannot change your own role',
        );
      }
      expect(dataOf<UserJson>(await asAdmin('GET', `/api/v1/admin/users/${admin.user.id}`)).role).to.equal('admin');
      expect(
        dataOf<UserJson>(await asAdmin('PUT', `/api/v1/admin/users/${admin.user.id}`, { role: 'admin' })).role,
      ).to.equal('admin');
    });
  });

  describe('DELETE /api/v1/admin/users/{id}', () => {
    it('answers 204, then the user is gone: GET 404, not listed, tokens and password refused', async () => {
      const account = await register(api);
      const second = await refresh(api, account.refresh_token);
      const response = await asAdmin('DELETE', `/api/v1/admin/users/${account.user.id}`);
      expect(response.status).to.equal(204);
      expect(response.text).to.equal('');
      expectError(await asAdmin('GET', `/api/v1/admin/users/${account.user.id}`), 404, 'NOT_FOUND', 'User not found', {
        detail: `id: ${account.user.id}`,
      });
      const listed = listOf(await asAdmin('GET', `/api/v1/admin/users?q=${encodeURIComponent(account.user.email)}`));
      expect(listed.users).to.deep.equal([]);
      // Still-unexpired access tokens stop working, and so do refresh tokens.
      expectUnauthorized(await api.get('/api/v1/profile', { token: account.access_token }));
      expectUnauthorized(await api.get('/api/v1/profile', { token: second.access_token }));
      expectError(
        await api.post('/api/v1/auth/refresh', { json: { refresh_token: second.refresh_token } }),
        401,
        'UNAUTHORIZED',
        'invalid token',
      );
      expectError(
        await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
        401,
        'UNAUTHORIZED',
        'invalid credentials',
      );
      expectError(
        await asAdmin('DELETE', `/api/v1/admin/users/${account.user.id}`),
        404,
        'NOT_FOUND',
        'User not found',
        { detail: `id: ${account.user.id}` },
      );
      // The e-mail is free again, for a new user with a new id.
      const reborn = await register(api, { email: account.user.email });
      expect(reborn.user.id).not.to.equal(account.user.id);
      expectUnauthorized(await api.get('/api/v1/profile', { token: account.access_token }));
    });

    it('refuses to let an admin delete themselves (409 CONFLICT)', async () => {
      expectError(
        await asAdmin('DELETE', `/api/v1/admin/users/${admin.user.id}`),
        409,
        'CONFLICT',
        'you cannot delete yourself',
      );
      expect(dataOf<UserJson>(await api.get('/api/v1/profile', { token: admin.access_token })).id).to.equal(
        admin.user.id,
      );
    });

    it('answers 404 for an unknown user', async () => {
      const unknown = randomUUID();
      expectError(await asAdmin('DELETE', `/api/v1/admin/users/${unknown}`), 404, 'NOT_FOUND', 'User not found', {
        detail: `id: ${unknown}`,
      });
    });
  });

  describe('never leaving the service without an admin (docs/access-rules.md), on a service of its own', () => {
    let own: RunningService;
    let ownApi: Api;
    before(async () => {
      own = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
        logger: silentLogger(),
      });
      ownApi = new Api(own.url);
    });
    after(async () => own.stop());

    const as = (account: { access_token: string }, method: string, path: string, json?: unknown) =>
      ownApi.send(method, path, { token: account.access_token, ...(json !== undefined ? { json } : {}) });
    const adminCount = async (by: { access_token: string }) =>
      listOf(await as(by, 'GET', '/api/v1/admin/users?per_page=100')).users.filter((u) => u.role === 'admin').length;

    it('a demoted admin, token issued before or not, can no longer demote or delete the last admin (403)', async () => {
      const ann = await accountWithRole(own, ownApi, 'admin');
      const ben = await accountWithRole(own, ownApi, 'admin');
      expect(
        dataOf<UserJson>(await as(ben, 'PUT', `/api/v1/admin/users/${ann.user.id}`, { role: 'moderator' })).role,
      ).to.equal('moderator');

      // Ann's access token still carries `admin`, but RBAC reads her current role.
      expectError(
        await as(ann, 'PUT', `/api/v1/admin/users/${ben.user.id}`, { role: 'user' }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
      expectError(await as(ann, 'DELETE', `/api/v1/admin/users/${ben.user.id}`), 403, 'FORBIDDEN', 'forbidden');
      expect(dataOf<UserJson>(await as(ben, 'GET', `/api/v1/admin/users/${ben.user.id}`)).role).to.equal('admin');
      expect(await adminCount(ben)).to.equal(1);
      // Ben still logs in, refreshes and reaches the admin API.
      listOf(await as(await refresh(ownApi, ben.refresh_token), 'GET', '/api/v1/admin/users'));
    });

    it('lets only one of two admins demoting or deleting each other at the same time succeed', async () => {
      for (const [method, body, ok] of [
        ['PUT', { role: 'user' }, 200],
        ['DELETE', undefined, 204],
      ] as const) {
        const first = await accountWithRole(own, ownApi, 'admin');
        const second = await accountWithRole(own, ownApi, 'admin');
        // Leave exactly these two admins.
        for (const user of listOf(await as(first, 'GET', '/api/v1/admin/users?per_page=100')).users) {
          if (user.role === 'admin' && user.id !== first.user.id && user.id !== second.user.id) {
            expect((await as(first, 'PUT', `/api/v1/admin/users/${user.id}`, { role: 'user' })).status).to.equal(200);
          }
        }
        const answers = await Promise.all([
          as(first, method, `/api/v1/admin/users/${second.user.id}`, body),
          as(second, method, `/api/v1/admin/users/${first.user.id}`, body),
        ]);
        const statuses = answers.map((a) => a.status);
        expect(
          statuses.filter((status) => status === ok),
          method,
        ).to.have.length(1);
        const refused = answers.find((a) => a.status !== ok)!;
        if (method === 'DELETE' && refused.status === 401) {
          // The loser was deleted before its own request was authenticated: also no second success.
          expectUnauthorized(refused);
        } else if (refused.status === 403) {
          // The loser was demoted before its own request reached RBAC, which reads the current role.
          expectError(refused, 403, 'FORBIDDEN', 'forbidden');
        } else {
          expectError(
            refused,
            409,
            'CONFLICT',
            method === 'PUT' ? 'the last admin cannot be demoted' : 'the last admin cannot be deleted',
          );
        }
        const survivor = statuses[0] === ok ? first : second;
        expect(await adminCount(survivor), method).to.equal(1);
      }
    });
  });

  describe('/api/v1/admin/policies', () => {
    const policies = async () => dataOf<Policies>(await asAdmin('GET', '/api/v1/admin/policies'));

    it('GET lists the seed rules and inheritance of policy/policy.csv', async () => {
      const data = await policies();
      expect(Object.keys(data).sort()).to.deep.equal(['inheritance', 'policies']);
      expect(data.policies).to.have.deep.members(SEED_RULES);
      expect(data.policies).to.have.length(SEED_RULES.length);
      expect(data.inheritance).to.have.deep.members(SEED_INHERITANCE);
      expect(data.inheritance).to.have.length(SEED_INHERITANCE.length);
    });

    it('POST adds a rule (201) that takes effect at once; DELETE with the same body removes it (204) at once', async () => {
      const user = await register(api);
      const rule = { role: 'user', path: '/api/v1/admin/users', action: 'GET' };
      const answered = { ...rule, scope: 'all' };
      expectError(await api.get('/api/v1/admin/users', { token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');

      expect(dataOf<Rule>(await asAdmin('POST', '/api/v1/admin/policies', rule), 201)).to.deep.equal(answered);
      expect((await policies()).policies).to.deep.include(answered);
      listOf(await api.get('/api/v1/admin/users', { token: user.access_token }));
      // Only what the rule says: not another method, not another path.
      expectError(
        await api.delete(`/api/v1/admin/users/${user.user.id}`, { token: user.access_token }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
      expectError(await api.get('/api/v1/admin/policies', { token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');

      const removed = await asAdmin('DELETE', '/api/v1/admin/policies', rule);
      expect(removed.status).to.equal(204);
      expect(removed.text).to.equal('');
      expect((await policies()).policies).not.to.deep.include(answered);
      expectError(await api.get('/api/v1/admin/users', { token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');
    });

    it('takes and answers a scope: own is kept apart from all, and removed only as own', async () => {
      const own = { role: 'user', path: '/api/v1/admin/users', action: 'GET', scope: 'own' };
      expect(dataOf<Rule>(await asAdmin('POST', '/api/v1/admin/policies', own), 201)).to.deep.equal(own);
      try {
        expect((await policies()).policies).to.deep.include(own);
        // The same line with scope all is another rule; without a scope a DELETE names the all one.
        const { scope: _own, ...unscoped } = own;
        expectError(await asAdmin('DELETE', '/api/v1/admin/policies', unscoped), 404, 'NOT_FOUND', 'Policy not found', {
          detail: 'role: user, path: /api/v1/admin/users, action: GET, scope: all',
        });
        expectError(await asAdmin('POST', '/api/v1/admin/policies', own), 409, 'CONFLICT', 'policy already exists');
      } finally {
        expect((await asAdmin('DELETE', '/api/v1/admin/policies', own)).status).to.equal(204);
      }
      expect((await policies()).policies).not.to.deep.include(own);
    });

    it('refuses a scope other than all or own with VALIDATION_ERROR naming scope', async () => {
      for (const scope of ['mine', 'ALL', '', 1, null]) {
        expectError(
          await asAdmin('POST', '/api/v1/admin/policies', {
            role: 'user',
            path: '/api/v1/products',
            action: 'PUT',
            scope,
          }),
          400,
          'VALIDATION_ERROR',
          'validation failed',
          { fields: [{ field: 'scope', message: 'must be one of: all, own' }] },
        );
      }
      expect((await policies()).policies).to.have.length(SEED_RULES.length);
    });

    it('POST of a rule already there is 409 CONFLICT (also once trimmed)', async () => {
      expectError(
        await asAdmin('POST', '/api/v1/admin/policies', SEED_RULES[2]),
        409,
        'CONFLICT',
        'policy already exists',
      );
      expectError(
        await asAdmin('POST', '/api/v1/admin/policies', {
          role: ' user ',
          path: ' /api/v1/products ',
          action: ' GET ',
        }),
        409,
        'CONFLICT',
        'policy already exists',
      );
      expect((await policies()).policies).to.have.length(SEED_RULES.length);
    });

    it('DELETE of an unknown rule is 404', async () => {
      expectError(
        await asAdmin('DELETE', '/api/v1/admin/policies', {
          role: 'user',
          path: '/api/v1/admin/users',
          action: 'DELETE',
        }),
        404,
        'NOT_FOUND',
        'Policy not found',
        {
          detail: 'role: user, path: /api/v1/admin/users, action: DELETE, scope: all',
        },
      );
    });

    it('DELETE of the last rule that lets some role reach POST /api/v1/admin/policies is 409 CONFLICT', async () => {
      const adminOnly = { role: 'admin', path: '/api/v1/admin/*', action: '.*' };
      const adminAll = { role: 'admin', path: '/api/v1/*', action: '.*', scope: 'all' };
      expect((await asAdmin('DELETE', '/api/v1/admin/policies', adminOnly)).status).to.equal(204);
      try {
        expectError(
          await asAdmin('DELETE', '/api/v1/admin/policies', adminAll),
          409,
          'CONFLICT',
          'no role could manage the access policy without this rule',
        );
        expect((await policies()).policies).to.deep.include(adminAll);
      } finally {
        expect((await asAdmin('POST', '/api/v1/admin/policies', adminOnly)).status).to.equal(201);
      }
      expect((await policies()).policies).to.have.deep.members(SEED_RULES);
    });

    it('matches actions as whole regular expressions', async () => {
      const user = await register(api);
      const other = await register(api);
      const partial = { role: 'user', path: '/api/v1/admin/users/{id}', action: 'GE' };
      const alternatives = { role: 'user', path: '/api/v1/admin/users/{id}', action: 'GET|PUT' };
      const target = `/api/v1/admin/users/${other.user.id}`;
      expect((await asAdmin('POST', '/api/v1/admin/policies', partial)).status).to.equal(201);
      try {
        expectError(await api.get(target, { token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');
        expect((await asAdmin('POST', '/api/v1/admin/policies', alternatives)).status).to.equal(201);
        expect(dataOf<UserJson>(await api.get(target, { token: user.access_token })).id).to.equal(other.user.id);
        expectError(await api.delete(target, { token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');
      } finally {
        await asAdmin('DELETE', '/api/v1/admin/policies', partial);
        await asAdmin('DELETE', '/api/v1/admin/policies', alternatives);
      }
      expectError(await api.get(target, { token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');
    });

    it('answers invalid rules with 400 listing every field', async () => {
      expectValidation(
        await asAdmin('POST', '/api/v1/admin/policies', {
          role: 'Not A Role',
          path: '/etc/passwd',
          action: 'GET;DROP',
        }),
        [
          { field: 'role', message: 'must be a role name (lower-case letters, digits, _ and -)' },
          { field: 'path', message: 'must be a path pattern starting with /api/v1 (segments, {param} or *)' },
          { field: 'action', message: 'must be a regular expression of HTTP methods, such as GET|PUT or .*' },
        ],
      );
      expectValidation(await asAdmin('POST', '/api/v1/admin/policies', {}), [
        { field: 'role', message: 'is required' },
        { field: 'path', message: 'is required' },
        { field: 'action', message: 'is required' },
      ]);
      expectValidation(
        await asAdmin('POST', '/api/v1/admin/policies', { role: 'user', path: '/api/v1/x', action: '(' }),
        [{ field: 'action', message: 'must be a regular expression of HTTP methods, such as GET|PUT or .*' }],
      );
      expectValidation(
        await asAdmin('DELETE', '/api/v1/admin/policies', { role: 'user', path: 'api/v1/products', action: 'GET' }),
        [{ field: 'path', message: 'must be a path pattern starting with /api/v1 (segments, {param} or *)' }],
      );
      expect((await policies()).policies).to.have.length(SEED_RULES.length);
    });
  });

  describe('persistence across a restart, on a SQLite file, with the first admin made by the CLI', function () {
    this.timeout(120_000);
    const dir = mkdtempSync(join(tmpdir(), 'portico-admin-'));
    const databaseUrl = `sqlite:${join(dir, 'portico.sqlite')}`;
    const cliEnv = { SVC_DATABASE_URL: databaseUrl, SVC_AUTH_BCRYPT_COST: '4', SVC_LOG_LEVEL: 'silent' };
    const rootEmail = uniqueEmail('root');
    const start = () =>
      startService(
        testConfig({ SVC_DATABASE_URL: databaseUrl, SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }),
        { logger: silentLogger() },
      );
    let created: Finished;
    before(async () => {
      // The documented way to the first admin, on a database no service has opened yet.
      created = await runEntry(
        'src/main/cli.ts',
        [
          'users:create',
          '--email',
          `  ${rootEmail.toUpperCase()} `,
          '--password',
          'root password 1',
          '--first-name',
          'Root',
          '--last-name',
          'Admin',
          '--role',
          'admin',
        ],
        cliEnv,
      );
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('users:create makes an admin (e-mail normalized) and refuses a taken e-mail, an unknown role and bad input', async () => {
      expect(created.stderr).to.equal('');
      expect(created.code).to.equal(0);
      expect(created.stdout).to.match(
        new RegExp(`^created user [0-9a-f-]{36} ${rootEmail.replace(/[.]/g, '\\.')} with role admin\\n$`),
      );

      const taken = await runEntry(
        'src/main/cli.ts',
        [
          'users:create',
          '--email',
          rootEmail,
          '--password',
          'root password 1',
          '--first-name',
          'Root',
          '--last-name',
          'Again',
          '--role',
          'user',
        ],
        cliEnv,
      );
      expect(taken.code).to.equal(1);
      expect(taken.stderr).to.equal(`portico: ${rootEmail}: email already registered\n`);

      const unknownRole = await runEntry(
        'src/main/cli.ts',
        [
          'users:create',
          '--email',
          uniqueEmail(),
          '--password',
          'root password 1',
          '--first-name',
          'R',
          '--last-name',
          'A',
          '--role',
          'superuser',
        ],
        cliEnv,
      );
      expect(unknownRole.code).to.equal(1);
      expect(unknownRole.stderr).to.equal(
        'portico: --role is not a role the access policy knows (admin, moderator, user)\n',
      );

      const bad = await runEntry(
        'src/main/cli.ts',
        [
          'users:create',
          '--email',
          'nope',
          '--password',
          'short',
          '--first-name',
          'R',
          '--last-name',
          'A',
          '--role',
          'admin',
        ],
        cliEnv,
      );
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.match(
        /^portico: --email must be a valid e-mail address; --password must be 8 to 72 bytes\nusage: npm run cli -- users:create /,
      );

      const invisible = await runEntry(
        'src/main/cli.ts',
        [
          'users:create',
          '--email',
          `\u200b${uniqueEmail()}`,
          '--password',
          'root password 1',
          '--first-name',
          'R\u202eA',
          '--last-name',
          'A',
          '--role',
          'admin',
        ],
        cliEnv,
      );
      expect(invisible.code).to.equal(2);
      expect(invisible.stderr).to.match(
        /^portico: --email must not contain invisible characters; --first-name must not contain invisible characters\n/,
      );
    });

    it('policies:reset puts the rules of policy/policy.csv back, saying what it replaced', async () => {
      const reset = () => runEntry('src/main/cli.ts', ['policies:reset'], cliEnv);
      const display = `sqlite ${join(dir, 'portico.sqlite')}`;
      // Start from the file's rules, whatever an earlier test left.
      expect((await reset()).code).to.equal(0);

      const intruder = { role: 'intruder', path: '/api/v1/admin/*', action: '.*' };
      const service = await start();
      try {
        const serviceApi = new Api(service.url);
        const root = await login(serviceApi, rootEmail, 'root password 1');
        expect(root.user.email_verified, 'the operator vouches for the address of a user it creates').to.equal(true);
        const send = (method: string, rule: Rule) =>
          serviceApi.send(method, '/api/v1/admin/policies', { token: root.access_token, json: rule });
        expect((await send('POST', intruder)).status).to.equal(201);
        expect((await send('DELETE', SEED_RULES[0]!)).status).to.equal(204);
        expect((await send('DELETE', SEED_RULES[3]!)).status).to.equal(204);
      } finally {
        await service.stop();
      }

      const done = await reset();
      expect(done.stderr).to.equal('');
      expect(done.code).to.equal(0);
      expect(done.stdout).to.equal(
        `reset access rules from policy/policy.csv into ${display}: removed 1, added 2\n` +
          '  removed: p, intruder, /api/v1/admin/*, .*\n' +
          '  added:   p, admin, /api/v1/*, .*\n' +
          '  added:   p, user, /api/v1/products/{id}, GET\n' +
          'no redis.url configured: running instances load the rules when they restart\n',
      );

      const after = await start();
      try {
        const afterApi = new Api(after.url);
        const root = await login(afterApi, rootEmail, 'root password 1');
        const data = dataOf<Policies>(await afterApi.get('/api/v1/admin/policies', { token: root.access_token }));
        expect(data.policies).to.have.deep.members(SEED_RULES);
        expect(data.policies).to.have.length(SEED_RULES.length);
        expect(data.inheritance).to.have.deep.members(SEED_INHERITANCE);
        expect(data.inheritance).to.have.length(SEED_INHERITANCE.length);
      } finally {
        await after.stop();
      }

      const again = await reset();
      expect(again.code).to.equal(0);
      expect(again.stdout).to.equal(
        `access rules already match policy/policy.csv into ${display}: nothing replaced\n` +
          'no redis.url configured: running instances load the rules when they restart\n',
      );
      const extra = await runEntry('src/main/cli.ts', ['policies:reset', 'now'], cliEnv);
      expect(extra.code).to.equal(2);
      expect(extra.stderr).to.equal(
        'portico: policies:reset takes no arguments (got now)\nusage: npm run cli -- policies:reset\n',
      );
    });

    it('keeps policy changes across a restart and never re-applies policy/policy.csv', async () => {
      const grant = { role: 'user', path: '/api/v1/admin/users', action: 'GET' };
      const keepPolicies = { role: 'admin', path: '/api/v1/admin/policies', action: '.*' };
      let root: Account;
      let user: Account;

      const first = await start();
      try {
        const firstApi = new Api(first.url);
        const session = await login(firstApi, rootEmail, 'root password 1');
        expect(session.user).to.include({ email: rootEmail, first_name: 'Root', last_name: 'Admin', role: 'admin' });
        root = { ...session, password: 'root password 1' };
        user = await register(firstApi);
        const send = (method: string, rule: Rule) =>
          firstApi.send(method, '/api/v1/admin/policies', { token: root.access_token, json: rule });
        expect((await send('POST', keepPolicies)).status).to.equal(201);
        expect((await send('DELETE', SEED_RULES[0]!)).status).to.equal(204);
        expect((await send('DELETE', SEED_RULES[1]!)).status).to.equal(204);
        expect((await send('POST', grant)).status).to.equal(201);
        // Admins lost the default rules (they keep, through user, what user was granted).
        expectError(
          await firstApi.get(`/api/v1/admin/users/${user.user.id}`, { token: root.access_token }),
          403,
          'FORBIDDEN',
          'forbidden',
        );
        listOf(await firstApi.get('/api/v1/admin/users', { token: user.access_token }));
      } finally {
        await first.stop();
      }

      const second = await start();
      try {
        const secondApi = new Api(second.url);
        const data = dataOf<Policies>(await secondApi.get('/api/v1/admin/policies', { token: root.access_token }));
        const listed = [keepPolicies, grant].map((rule) => ({ ...rule, scope: 'all' }));
        expect(data.policies).to.have.deep.members([...SEED_RULES.slice(2), ...listed]);
        expect(data.policies).to.have.length(SEED_RULES.length);
        expect(data.inheritance).to.have.deep.members(SEED_INHERITANCE);
        // Still enforced: the grant works, the removed default rules stay removed.
        listOf(await secondApi.get('/api/v1/admin/users', { token: user.access_token }));
        expectError(
          await secondApi.get(`/api/v1/admin/users/${user.user.id}`, { token: root.access_token }),
          403,
          'FORBIDDEN',
          'forbidden',
        );
        listOf(await secondApi.get('/api/v1/admin/users', { token: root.access_token }));
        // Users and their sessions survived too.
        expect((await refresh(secondApi, user.refresh_token)).token_type).to.equal('Bearer');
      } finally {
        await second.stop();
      }
    });
  });
});
