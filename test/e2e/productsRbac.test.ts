import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { PRODUCT_PATHS } from '../../src/adapters/inbound/productUseCases.js';
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
  setRole,
  type Account,
  type ApiResponse,
  type ErrorJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

interface ProductJson {
  id: string;
  name: string;
  price: number;
  created_at: string;
  updated_at: string;
}

const PRODUCTS = PRODUCT_PATHS.collection;
const JSON_HEADERS = { 'Content-Type': 'application/json' };

describe('products: access control (end to end)', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;
  let user: Account;
  let moderator: Account;
  let admin: Account;
  /** A product nobody but the write tests of an allowed role changes. */
  let fixture: ProductJson;

  const createAsAdmin = async (name: string, price = 10): Promise<ProductJson> =>
    dataOf<ProductJson>(
      await api.post(PRODUCTS, { token: admin.access_token, json: { ...PRODUCT_BODY, name, price } }),
      201,
    );
  const current = async (id: string): Promise<ProductJson> =>
    dataOf<ProductJson>(await api.get(`${PRODUCTS}/${id}`, { token: admin.access_token }));
  /** Products whose name contains `text`, as the admin sees them. */
  const named = async (text: string): Promise<ProductJson[]> =>
    dataOf<ProductJson[]>(
      await api.get(`${PRODUCTS}/search?q=${encodeURIComponent(text)}&per_page=100`, { token: admin.access_token }),
    );

  /** The six product operations (list, search, get, create, update, delete) on `id`, each with a valid body. */
  const operations = (id: string, name: string) =>
    [
      { title: 'GET list', method: 'GET', path: PRODUCTS },
      { title: 'GET search', method: 'GET', path: `${PRODUCTS}/search?q=a` },
      { title: 'GET one', method: 'GET', path: `${PRODUCTS}/${id}` },
      { title: 'POST', method: 'POST', path: PRODUCTS, json: { ...PRODUCT_BODY, name, price: 5 } },
      { title: 'PUT', method: 'PUT', path: `${PRODUCTS}/${id}`, json: { name, price: 6 } },
      { title: 'DELETE', method: 'DELETE', path: `${PRODUCTS}/${id}` },
    ] as const;

  const send = (route: { method: string; path: string; json?: unknown }, token?: string): Promise<ApiResponse> =>
    api.send(route.method, route.path, {
      ...(token !== undefined ? { token } : {}),
      ...(route.json !== undefined ? { json: route.json } : {}),
    });

  before(async () => {
    service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    api = new Api(service.url);
    user = await register(api);
    moderator = await accountWithRole(service, api, 'moderator');
    admin = await accountWithRole(service, api, 'admin');
    expect(user.user.role).to.equal('user');
  });
  after(async () => service.stop());

  beforeEach(async () => {
    fixture = await createAsAdmin(`Fixture ${randomUUID()}`, 42);
  });

  describe('role user', () => {
    it('may list, search and read: 200', async () => {
      const list = await api.get(PRODUCTS, { token: user.access_token });
      expect(dataOf<ProductJson[]>(list).map((p) => p.id)).to.include(fixture.id);
      expect(
        dataOf<ProductJson[]>(
          await api.get(`${PRODUCTS}/search?q=${encodeURIComponent(fixture.name)}`, { token: user.access_token }),
        ),
      ).to.deep.equal([fixture]);
      expect(
        dataOf<ProductJson>(await api.get(`${PRODUCTS}/${fixture.id}`, { token: user.access_token })),
      ).to.deep.equal(fixture);
    });

    it('reads an unknown product as 404, like everyone else', async () => {
      const id = randomUUID();
      expectError(
        await api.get(`${PRODUCTS}/${id}`, { token: user.access_token }),
        404,
        'NOT_FOUND',
        'Product not found',
        { detail: `id: ${id}` },
      );
    });

    it('may not create, update or delete: 403 FORBIDDEN "forbidden", and nothing changes', async () => {
      const name = `Forbidden ${randomUUID()}`;
      for (const route of operations(fixture.id, name).filter((r) => r.method !== 'GET')) {
        expectError(await send(route, user.access_token), 403, 'FORBIDDEN', 'forbidden');
      }
      expect(await current(fixture.id)).to.deep.equal(fixture);
      expect(await named(name)).to.deep.equal([]);
    });

    it('is refused before its body or the id is looked at: 403, not 400 or 404', async () => {
      const token = user.access_token;
      expectError(
        await api.post(PRODUCTS, { token, json: { ...PRODUCT_BODY, name: '', price: 0 } }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
      expectError(await api.post(PRODUCTS, { token, json: {} }), 403, 'FORBIDDEN', 'forbidden');
      expectError(
        await api.post(PRODUCTS, { token, raw: '[1]', headers: JSON_HEADERS }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
      expectError(
        await api.put(`${PRODUCTS}/${fixture.id}`, { token, json: { price: 'free' } }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
      expectError(
        await api.put(`${PRODUCTS}/${randomUUID()}`, { token, json: { price: 1 } }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
      expectError(await api.put(`${PRODUCTS}/abc`, { token, json: { price: 1 } }), 403, 'FORBIDDEN', 'forbidden');
      expectError(await api.delete(`${PRODUCTS}/${randomUUID()}`, { token }), 403, 'FORBIDDEN', 'forbidden');
      expectError(await api.delete(`${PRODUCTS}/abc`, { token }), 403, 'FORBIDDEN', 'forbidden');
      expect(await current(fixture.id)).to.deep.equal(fixture);
    });

    it('gets write access within a second of being promoted to moderator, with the token it already has', async () => {
      const account = await register(api);
      const create = () =>
        api.post(PRODUCTS, {
          token: account.access_token,
          json: { ...PRODUCT_BODY, name: `promoted ${randomUUID()}`, price: 1 },
        });
      expectError(await create(), 403, 'FORBIDDEN', 'forbidden');
      await setRole(service, account.user.id, 'moderator');
      const started = Date.now();
      let status = (await create()).status;
      while (status !== 201 && Date.now() - started < 1500) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await create()).status;
      }
      expect(status, 'the old token, once the role changed').to.equal(201);
    });
  });

  for (const role of ['moderator', 'admin'] as const) {
    describe(`role ${role}`, () => {
      const account = () => (role === 'moderator' ? moderator : admin);

      it('may list, search, read, create, update and delete', async () => {
        const token = account().access_token;
        const name = `${role} made ${randomUUID()}`;
        expect(dataOf<ProductJson[]>(await api.get(PRODUCTS, { token })).length).to.be.greaterThan(0);
        expect(
          dataOf<ProductJson[]>(await api.get(`${PRODUCTS}/search?q=${encodeURIComponent(fixture.name)}`, { token })),
        ).to.deep.equal([fixture]);
        expect(dataOf<ProductJson>(await api.get(`${PRODUCTS}/${fixture.id}`, { token }))).to.deep.equal(fixture);
        const created = dataOf<ProductJson>(
          await api.post(PRODUCTS, { token, json: { ...PRODUCT_BODY, name, price: 5 } }),
          201,
        );
        expect(created).to.include({ name, price: 5 });
        expect(
          dataOf<ProductJson>(await api.put(`${PRODUCTS}/${created.id}`, { token, json: { price: 6 } })),
        ).to.include({ id: created.id, name, price: 6 });
        const deleted = await api.delete(`${PRODUCTS}/${created.id}`, { token });
        expect(deleted.status).to.equal(204);
        expect(deleted.text).to.equal('');
        expectError(await api.get(`${PRODUCTS}/${created.id}`, { token }), 404, 'NOT_FOUND', 'Product not found', {
          detail: `id: ${created.id}`,
        });
      });

      it('gets 400 VALIDATION_ERROR for an invalid body (it passed authentication and RBAC)', async () => {
        const token = account().access_token;
        expectValidation(await api.post(PRODUCTS, { token, json: { ...PRODUCT_BODY, name: '', price: 0 } }), [
          { field: 'name', message: 'must be 1 to 200 characters' },
          { field: 'price', message: 'must be a number greater than 0' },
        ]);
        expectValidation(await api.put(`${PRODUCTS}/${fixture.id}`, { token, json: { price: 'free' } }), [
          { field: 'price', message: 'must be a number greater than 0' },
        ]);
        expect(await current(fixture.id)).to.deep.equal(fixture);
      });

      it('is refused admin routes unless admin', async () => {
        const response = await api.get('/api/v1/admin/users', { token: account().access_token });
        if (role === 'admin') expect(response.status).to.equal(200);
        else expectError(response, 403, 'FORBIDDEN', 'forbidden');
      });
    });
  }

  describe('without a valid token', () => {
    it('every product operation answers 401 "missing bearer token" with WWW-Authenticate: Bearer', async () => {
      for (const route of operations(fixture.id, `Anonymous ${randomUUID()}`)) {
        expectUnauthorized(await send(route), 'missing bearer token');
      }
      expect(await current(fixture.id)).to.deep.equal(fixture);
    });

    it('401 comes before 404 and before validation', async () => {
      expectUnauthorized(await api.get(`${PRODUCTS}/${randomUUID()}`), 'missing bearer token');
      expectUnauthorized(await api.get(`${PRODUCTS}/abc`), 'missing bearer token');
      expectUnauthorized(await api.get(`${PRODUCTS}/search`), 'missing bearer token');
      expectUnauthorized(await api.get(`${PRODUCTS}?page=0`), 'missing bearer token');
      expectUnauthorized(
        await api.post(PRODUCTS, { json: { ...PRODUCT_BODY, name: '', price: 0 } }),
        'missing bearer token',
      );
      expectUnauthorized(await api.put(`${PRODUCTS}/abc`, { json: { price: 0 } }), 'missing bearer token');
      expectUnauthorized(await api.delete(`${PRODUCTS}/${randomUUID()}`), 'missing bearer token');
    });

    it('a malformed, foreign or refresh token is 401 "invalid token" on every operation', async () => {
      const bad = ['not-a-token', `${user.access_token}x`, user.refresh_token];
      for (const token of bad) {
        for (const route of operations(fixture.id, `Bad token ${randomUUID()}`))
          expectUnauthorized(await send(route, token));
      }
      expect(await current(fixture.id)).to.deep.equal(fixture);
    });
  });

  describe('the order of faults (docs/http.md)', () => {
    it('malformed JSON is 400 BAD_REQUEST before 401 or 403', async () => {
      for (const token of [undefined, user.access_token, moderator.access_token]) {
        for (const [method, path] of [
          ['POST', PRODUCTS],
          ['PUT', `${PRODUCTS}/${fixture.id}`],
          ['DELETE', `${PRODUCTS}/${fixture.id}`],
        ] as const) {
          const response = await api.send(method, path, {
            raw: '{"name": ',
            headers: JSON_HEADERS,
            ...(token ? { token } : {}),
          });
          expectError(response, 400, 'BAD_REQUEST', 'invalid request body');
        }
      }
      expect(await current(fixture.id)).to.deep.equal(fixture);
    });

    it('a non-JSON content type is 415 before 401 or 403', async () => {
      for (const token of [undefined, 'not-a-token', user.access_token, moderator.access_token]) {
        for (const [method, path] of [
          ['POST', PRODUCTS],
          ['PUT', `${PRODUCTS}/${fixture.id}`],
        ] as const) {
          const response = await api.send(method, path, {
            raw: 'name=x&price=1',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            ...(token ? { token } : {}),
          });
          expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
        }
      }
      expect(await current(fixture.id)).to.deep.equal(fixture);
    });

    it('a well-formed but invalid body: 401 without a token, 403 for a user, 400 only for an allowed role', async () => {
      const json = { ...PRODUCT_BODY, name: '   ', price: -1 };
      expectUnauthorized(await api.post(PRODUCTS, { json }), 'missing bearer token');
      expectError(await api.post(PRODUCTS, { json, token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');
      expectValidation(await api.post(PRODUCTS, { json, token: moderator.access_token }), [
        { field: 'name', message: 'must be 1 to 200 characters' },
        { field: 'price', message: 'must be a number greater than 0' },
      ]);
    });
  });

  describe('search follows GET /api/v1/products/{id} in the policy', () => {
    it('a role allowed only GET on /api/v1/products/{id} may search and read, but not list', async () => {
      const rule = { role: 'viewer', path: PRODUCT_PATHS.policy.item, action: 'GET' };
      expect((await api.post('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
        201,
      );
      try {
        const viewer = await accountWithRole(service, api, 'viewer');
        const token = viewer.access_token;
        expect(
          dataOf<ProductJson[]>(await api.get(`${PRODUCTS}/search?q=${encodeURIComponent(fixture.name)}`, { token })),
        ).to.deep.equal([fixture]);
        expect(dataOf<ProductJson>(await api.get(`${PRODUCTS}/${fixture.id}`, { token }))).to.deep.equal(fixture);
        expectError(await api.get(PRODUCTS, { token }), 403, 'FORBIDDEN', 'forbidden');
        expectError(
          await api.put(`${PRODUCTS}/${fixture.id}`, { token, json: { price: 1 } }),
          403,
          'FORBIDDEN',
          'forbidden',
        );
      } finally {
        expect((await api.delete('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
          204,
        );
      }
    });

    it('a role allowed only the list may not search', async () => {
      const rule = { role: 'lister', path: PRODUCT_PATHS.policy.collection, action: 'GET' };
      expect((await api.post('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
        201,
      );
      try {
        const lister = await accountWithRole(service, api, 'lister');
        const token = lister.access_token;
        expect(dataOf<ProductJson[]>(await api.get(PRODUCTS, { token })).length).to.be.greaterThan(0);
        expectError(await api.get(`${PRODUCTS}/search?q=a`, { token }), 403, 'FORBIDDEN', 'forbidden');
        expectError(await api.get(`${PRODUCTS}/${fixture.id}`, { token }), 403, 'FORBIDDEN', 'forbidden');
      } finally {
        expect((await api.delete('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
          204,
        );
      }
    });
  });

  describe('path variants never let a user write', () => {
    const collectionVariants = [
      '/api/v1/Products',
      '/API/v1/products',
      '/api/V1/products',
      '/api/v1/PRODUCTS',
      '/api/v1/products/',
      '/api/v1//products',
      '//api/v1/products',
      '/api/v1/products//',
      '/api/v1/%70roducts',
      '/api/v1/product%73',
      '/api/v1/./products',
      '/api/v1/products/.',
      '/api/v1/profile/../products',
      '/api/v1/products;x',
      '/api/v1/products%20',
      '/api/v1/products%00',
      '/api/v1/products?x=/api/v1/profile',
    ];
    const itemVariants = (id: string) => [
      `/api/v1/Products/${id}`,
      `/api/v1/products/${id}/`,
      `/api/v1//products/${id}`,
      `/api/v1/products//${id}`,
      `/api/v1/products/./${id}`,
      `/api/v1/%70roducts/${id}`,
      `/api/v1/products/${id.toUpperCase()}`,
      `/api/v1/products/${id}%2F`,
      `/api/v1/products/%2e%2e/products/${id}`,
      `/api/v1/profile/../products/${id}`,
      `/api/v1/products/${id};x`,
    ];

    const expectRefused = (status: number, text: string, what: string) => {
      expect(status, `${what}: ${status} ${text}`).to.be.within(400, 499);
      const body = JSON.parse(text) as ErrorJson;
      expect(body.success, what).to.equal(false);
    };

    it('the canonical paths are the control: 201/200/204 for a moderator, 403 for a user', async () => {
      const headers = (token: string) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });
      const created = await rawRequest(
        service.url,
        'POST',
        PRODUCTS,
        headers(moderator.access_token),
        JSON.stringify({ ...PRODUCT_BODY, name: 'Control', price: 1 }),
      );
      expect(created.status, created.text).to.equal(201);
      expect(
        (
          await rawRequest(
            service.url,
            'POST',
            PRODUCTS,
            headers(user.access_token),
            JSON.stringify({ ...PRODUCT_BODY, name: 'Control', price: 1 }),
          )
        ).status,
      ).to.equal(403);
      expect(
        (await rawRequest(service.url, 'PUT', `${PRODUCTS}/${fixture.id}`, headers(user.access_token), '{"price": 1}'))
          .status,
      ).to.equal(403);
      expect(
        (
          await rawRequest(
            service.url,
            'PUT',
            `${PRODUCTS}/${fixture.id}`,
            headers(moderator.access_token),
            '{"price": 43}',
          )
        ).status,
      ).to.equal(200);
      expect(
        (
          await rawRequest(service.url, 'DELETE', `${PRODUCTS}/${fixture.id}`, {
            Authorization: `Bearer ${user.access_token}`,
          })
        ).status,
      ).to.equal(403);
      expect(
        (
          await rawRequest(service.url, 'DELETE', `${PRODUCTS}/${fixture.id}`, {
            Authorization: `Bearer ${moderator.access_token}`,
          })
        ).status,
      ).to.equal(204);
    });

    it('POST to a variant of the collection is never 2xx for a user, and creates nothing', async () => {
      const name = `Sneaky ${randomUUID()}`;
      for (const path of collectionVariants) {
        const response = await rawRequest(
          service.url,
          'POST',
          path,
          { Authorization: `Bearer ${user.access_token}`, 'Content-Type': 'application/json' },
          JSON.stringify({ ...PRODUCT_BODY, name, price: 1 }),
        );
        expectRefused(response.status, response.text, `POST ${path}`);
      }
      expect(await named(name)).to.deep.equal([]);
    });

    it('PUT and DELETE on a variant of an item path are never 2xx for a user, and change nothing', async () => {
      for (const path of itemVariants(fixture.id)) {
        const put = await rawRequest(
          service.url,
          'PUT',
          path,
          { Authorization: `Bearer ${user.access_token}`, 'Content-Type': 'application/json' },
          JSON.stringify({ name: 'Hijacked', price: 0.01 }),
        );
        expectRefused(put.status, put.text, `PUT ${path}`);
        const del = await rawRequest(service.url, 'DELETE', path, { Authorization: `Bearer ${user.access_token}` });
        expectRefused(del.status, del.text, `DELETE ${path}`);
      }
      expect(await current(fixture.id)).to.deep.equal(fixture);
    });

    it('variants without a token are never 2xx either', async () => {
      for (const path of [...collectionVariants, ...itemVariants(fixture.id)]) {
        const response = await rawRequest(service.url, 'DELETE', path);
        expectRefused(response.status, response.text, `DELETE ${path}`);
      }
      expect(await current(fixture.id)).to.deep.equal(fixture);
    });
  });
});
