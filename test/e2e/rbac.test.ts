import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import {
  accountWithRole,
  Api,
  dataOf,
  expectError,
  expectUnauthorized,
  expectValidation,
  rawRequest,
  register,
  type Account,
  type ErrorJson,
  type UserJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';

describe('access control (end to end)', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;
  let user: Account;
  let moderator: Account;
  let admin: Account;

  /** Every admin route with a body that would be valid for an admin. */
  const adminRoutes = (): { method: string; path: string; json?: unknown }[] => [
    { method: 'GET', path: '/api/v1/admin/users' },
    { method: 'GET', path: `/api/v1/admin/users/${user.user.id}` },
    { method: 'PUT', path: `/api/v1/admin/users/${user.user.id}`, json: { role: 'moderator' } },
    { method: 'DELETE', path: `/api/v1/admin/users/${user.user.id}` },
    { method: 'GET', path: '/api/v1/admin/policies' },
    {
      method: 'POST',
      path: '/api/v1/admin/policies',
      json: { role: 'user', path: '/api/v1/admin/users', action: 'GET' },
    },
    {
      method: 'DELETE',
      path: '/api/v1/admin/policies',
      json: { role: 'user', path: '/api/v1/products', action: 'GET' },
    },
  ];

  before(async () => {
    service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    api = new Api(service.url);
    user = await register(api);
    moderator = await accountWithRole(service, api, 'moderator');
    admin = await accountWithRole(service, api, 'admin');
  });
  after(async () => service.stop());

  describe('by role', () => {
    it('user: 403 FORBIDDEN "forbidden" on every admin route, and nothing changes', async () => {
      for (const route of adminRoutes()) {
        const response = await api.send(route.method, route.path, {
          token: user.access_token,
          ...(route.json ? { json: route.json } : {}),
        });
        expectError(response, 403, 'FORBIDDEN', 'forbidden');
      }
      expect(dataOf<UserJson>(await api.get('/api/v1/profile', { token: user.access_token })).role).to.equal('user');
    });

    it('moderator: 403 on every admin route', async () => {
      for (const route of adminRoutes()) {
        const response = await api.send(route.method, route.path, {
          token: moderator.access_token,
          ...(route.json ? { json: route.json } : {}),
        });
        expectError(response, 403, 'FORBIDDEN', 'forbidden');
      }
    });

    it('admin: 200 on the admin lists', async () => {
      expect(
        dataOf<UserJson[]>(await api.get('/api/v1/admin/users', { token: admin.access_token })).map((u) => u.id),
      ).to.include.members([user.user.id, moderator.user.id, admin.user.id]);
      dataOf<unknown>(await api.get('/api/v1/admin/policies', { token: admin.access_token }));
      expect(
        dataOf<UserJson>(await api.get(`/api/v1/admin/users/${user.user.id}`, { token: admin.access_token })).id,
      ).to.equal(user.user.id);
    });

    it('every role reaches its own profile (GET and PUT)', async () => {
      for (const account of [user, moderator, admin]) {
        expect(dataOf<UserJson>(await api.get('/api/v1/profile', { token: account.access_token })).id).to.equal(
          account.user.id,
        );
        expect(
          dataOf<UserJson>(
            await api.put('/api/v1/profile', { token: account.access_token, json: { last_name: 'Updated' } }),
          ).last_name,
        ).to.equal('Updated');
      }
    });

    it('profile and logout need only a token, even with the profile rule removed from the policy', async () => {
      const rule = { role: 'user', path: '/api/v1/profile', action: 'GET|PUT' };
      expect((await api.delete('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
        204,
      );
      try {
        const account = await register(api);
        expect(dataOf<UserJson>(await api.get('/api/v1/profile', { token: account.access_token })).id).to.equal(
          account.user.id,
        );
        expect(
          dataOf<UserJson>(
            await api.put('/api/v1/profile', { token: account.access_token, json: { first_name: 'Still' } }),
          ).first_name,
        ).to.equal('Still');
        expect(
          (
            await api.post('/api/v1/auth/logout', {
              token: account.access_token,
              json: { refresh_token: account.refresh_token },
            })
          ).status,
        ).to.equal(204);
      } finally {
        expect((await api.post('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
          201,
        );
      }
    });

    it('checks HEAD as GET', async () => {
      expect((await api.send('HEAD', '/api/v1/admin/users', { token: user.access_token })).status).to.equal(403);
      expect((await api.send('HEAD', '/api/v1/admin/users', { token: admin.access_token })).status).to.equal(200);
    });
  });

  describe('path variants never reach a handler the role is denied', () => {
    const variants = [
      '/API/v1/admin/users',
      '/api/v1/Admin/users',
      '/api/v1/admin/Users',
      '/api/V1/admin/users',
      '/api/v1/admin/users/',
      '/api/v1//admin/users',
      '/api/v1/admin//users',
      '//api/v1/admin/users',
      '/api/v1/%61dmin/users',
      '/api/v1/admin/%75sers',
      '/api/v1/%41dmin/users',
      '/%61pi/v1/admin/users',
      '/api/v1/admin%2Fusers',
      '/api/v1/admin%2fusers',
      '/api/v1/admin/users%2F',
      '/api/v1/products/../admin/users',
      '/api/v1/products/%2e%2e/admin/users',
      // One segment for a raw-path matcher of `/api/v1/products/{id}` (which users may GET).
      '/api/v1/products/..%2Fadmin%2Fusers',
      '/api/v1/products/%2e%2e%2fadmin%2fusers',
      '/api/v1/profile/../admin/users',
      '/api/v1/./admin/users',
      '/api/v1/admin/./users',
      '/api/v1/admin/users/.',
      '/api/v1/admin/users;x',
      '/api/v1/admin;x/users',
      '/api/v1/admin/users%00',
      '/api/v1/admin/users%20',
      '/api/v1/admin/users%09',
      `/api/v1/admin/users/${randomUUID()}/`,
      '/api/v1/admin/policies/',
      '/api/v1/ADMIN/policies',
      '/api/v1/admin/%70olicies',
    ];

    it('the canonical path is the control: 200 for an admin, 403 for a user', async () => {
      expect(
        (await rawRequest(service.url, 'GET', '/api/v1/admin/users', { Authorization: `Bearer ${admin.access_token}` }))
          .status,
      ).to.equal(200);
      expect(
        (await rawRequest(service.url, 'GET', '/api/v1/admin/users', { Authorization: `Bearer ${user.access_token}` }))
          .status,
      ).to.equal(403);
    });

    for (const path of variants) {
      it(`GET ${path} as a user: 401, 403 or 404 with the error envelope, never 200`, async () => {
        const response = await rawRequest(service.url, 'GET', path, { Authorization: `Bearer ${user.access_token}` });
        expect([401, 403, 404], `${response.status} ${response.text}`).to.include(response.status);
        const body = JSON.parse(response.text) as ErrorJson;
        expect(body.success).to.equal(false);
        expect(body.error.code).to.equal(
          { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' }[response.status as 401 | 403 | 404],
        );
        expect(response.text).not.to.include(admin.user.email);
      });
    }

    it('the same variants with a state-changing method never act either', async () => {
      for (const path of variants) {
        const response = await rawRequest(
          service.url,
          'POST',
          path.replace('/users', '/policies'),
          { Authorization: `Bearer ${user.access_token}`, 'Content-Type': 'application/json' },
          JSON.stringify({ role: 'user', path: '/api/v1/admin/*', action: '.*' }),
        );
        expect([401, 403, 404, 405], `${path}: ${response.status} ${response.text}`).to.include(response.status);
      }
      const policies = dataOf<{ policies: { role: string; path: string }[] }>(
        await api.get('/api/v1/admin/policies', { token: admin.access_token }),
      );
      expect(policies.policies.filter((p) => p.role === 'user').map((p) => p.path)).not.to.include('/api/v1/admin/*');
    });
  });

  describe('without a token', () => {
    it('every admin route answers 401 "missing bearer token" with WWW-Authenticate: Bearer', async () => {
      for (const route of adminRoutes()) {
        expectUnauthorized(
          await api.send(route.method, route.path, route.json ? { json: route.json } : {}),
          'missing bearer token',
        );
      }
    });

    it('a bad token is 401 "invalid token" on admin routes too', async () => {
      expectUnauthorized(await api.get('/api/v1/admin/users', { token: 'not-a-token' }));
    });
  });

  describe('the order of faults (docs/http.md)', () => {
    it('a malformed JSON body is 400 BAD_REQUEST before any 401 or 403', async () => {
      const raw = '{"role": ';
      const headers = { 'Content-Type': 'application/json' };
      for (const token of [undefined, user.access_token]) {
        for (const [method, path] of [
          ['PUT', `/api/v1/admin/users/${user.user.id}`],
          ['POST', '/api/v1/admin/policies'],
          ['DELETE', '/api/v1/admin/policies'],
          ['POST', '/api/v1/auth/logout'],
        ] as const) {
          expectError(
            await api.send(method, path, { raw, headers, ...(token ? { token } : {}) }),
            400,
            'BAD_REQUEST',
            'invalid request body',
          );
        }
      }
    });

    it('a non-JSON content type is 415 before any 401 or 403', async () => {
      for (const token of [undefined, user.access_token]) {
        const response = await api.post('/api/v1/admin/policies', {
          raw: 'role=user',
          headers: { 'Content-Type': 'text/plain' },
          ...(token ? { token } : {}),
        });
        expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
      }
    });

    it('a well-formed but invalid body is judged after authentication and RBAC: 401, then 403, then 400', async () => {
      const path = `/api/v1/admin/users/${user.user.id}`;
      const json = { role: 'NOT A ROLE' };
      expectUnauthorized(await api.put(path, { json }), 'missing bearer token');
      expectError(await api.put(path, { json, token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');
      expectValidation(await api.put(path, { json, token: admin.access_token }), [
        { field: 'role', message: 'must be a role name (lower-case letters, digits, _ and -)' },
      ]);
    });

    it('an unknown route is 404 "route not found" and a known path with another method is 405, token or not', async () => {
      expectError(await api.get('/api/v1/admin/nothing'), 404, 'NOT_FOUND', 'route not found');
      expectError(
        await api.get('/api/v1/admin/nothing', { token: user.access_token }),
        404,
        'NOT_FOUND',
        'route not found',
      );
      const response = await api.send('PATCH', '/api/v1/admin/users', { json: {} });
      expectError(response, 405, 'METHOD_NOT_ALLOWED', 'method not allowed');
      expect((response.headers.get('allow') ?? '').split(',').map((m) => m.trim())).to.include('GET');
    });
  });
});
