import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  accountWithRole,
  dataOf,
  expectError,
  expectUnauthorized,
  expectValidation,
  rawRequest,
  register,
  setRole,
  type ApiResponse,
  type ErrorJson,
} from '../api.js';
import { gqlData, gqlError, graphql } from '../graphql.js';
import {
  METHOD_OF,
  mutationsOf,
  UNKNOWN_ID,
  type GraphQLOperation,
  type Json,
  type Method,
  type RestOperation,
  type ResourceUnderTest,
  type Role,
} from './descriptor.js';
import { documentsOf } from './graphql.js';
import { JSON_HEADERS, searchable } from './restKit.js';
import { createRow, graphqlInput, itemPath, useResourceWorld, validBody, type RowJson } from './world.js';

const ROLES: readonly Role[] = ['user', 'moderator', 'admin'];
const WRITES: readonly Method[] = ['POST', 'PUT', 'DELETE'];

/** The status an allowed REST operation answers with a valid request. */
const SUCCESS: Readonly<Record<RestOperation, number>> = {
  list: 200,
  search: 200,
  get: 200,
  create: 201,
  update: 200,
  delete: 204,
};

/**
 * Access control of a resource (docs/access-rules.md, docs/http.md and README: GraphQL): for each role and each REST
 * and GraphQL operation, allowed (and it works) or 403 FORBIDDEN with nothing changed, per the
 * resource's policy; without a valid token REST answers 401; the order of faults (400 and 415
 * before 401 and 403, validation after them); a role change reaching the routes at once; search
 * following `GET …/{id}` in the policy; and no variant of a path letting a role write where the
 * canonical one does not.
 */
export function describeResourceRbac(resource: ResourceUnderTest): void {
  const collection = resource.collection;
  const restOperations: RestOperation[] = [
    'list',
    ...(resource.search ? (['search'] as const) : []),
    'get',
    'create',
    'update',
    'delete',
  ];
  const graphqlOperations: GraphQLOperation[] = ['list', 'one', 'create', 'update', 'delete'];
  const docs = documentsOf(resource);
  const mutations = mutationsOf(resource);
  const fieldOf: Readonly<Record<GraphQLOperation, string>> = {
    one: resource.graphql.one,
    list: resource.graphql.list,
    create: mutations.create,
    update: mutations.update,
    delete: mutations.delete,
  };
  const policyHas = (role: Role, method: Method) => resource.policy[role].includes(method);
  /** A role the policy gives no write (docs/access-rules.md: `user`), and one it gives every write (`moderator`). */
  const barred = ROLES.find((role) => WRITES.every((method) => !policyHas(role, method)));
  const writer = ROLES.find((role) => WRITES.every((method) => policyHas(role, method)));
  /** A body every field of which is refused (each field's first refused value). */
  const refusable = resource.fields.filter((f) => f.invalid.length > 0);
  const refusedFields = refusable.map((f) => ({ field: f.name, message: f.invalid[0]!.message }));

  describe(`${collection}: access control (end to end)`, function () {
    this.timeout(60_000);
    const world = useResourceWorld();
    const admin = () => world().token;
    const tokenOf = (role: Role) => world().accounts[role].access_token;
    /** The row a role's test works on: by the admin, or (an owned resource) by that role, as it sees only its own rows under `own`. */
    const rowFor = (role: Role) =>
      resource.owned ? createRow(world(), resource, {}, tokenOf(role)) : createRow(world(), resource);
    const current = async (id: string) => world().api.get(itemPath(resource, id), { token: admin() });
    const total = async () =>
      ((await world().api.get(`${collection}?per_page=1`, { token: admin() })).body as { meta: { total: number } }).meta
        .total;
    const refusedBody = async (): Promise<Record<string, Json>> => {
      const body = await validBody(world(), resource);
      for (const field of refusable) body[field.name] = field.invalid[0]!.value;
      return body;
    };

    /** Sends one REST operation on `row` as `token`. */
    async function rest(operation: RestOperation, row: RowJson, token: string | undefined): Promise<ApiResponse> {
      const options = (json?: unknown) => ({
        ...(token === undefined ? {} : { token }),
        ...(json === undefined ? {} : { json }),
      });
      const api = world().api;
      switch (operation) {
        case 'list':
          return api.get(collection, options());
        case 'search':
          return api.get(`${collection}/search?q=a`, options());
        case 'get':
          return api.get(itemPath(resource, row.id), options());
        case 'create':
          return api.post(collection, options(await validBody(world(), resource)));
        case 'update':
          return api.put(itemPath(resource, row.id), options(await validBody(world(), resource, 1)));
        case 'delete':
          return api.delete(itemPath(resource, row.id), options());
      }
    }

    for (const role of ROLES) {
      const allowed = (operation: RestOperation | GraphQLOperation) => policyHas(role, METHOD_OF[operation]);

      for (const operation of restOperations) {
        it(`${role}: REST ${operation} is ${allowed(operation) ? 'allowed' : '403 FORBIDDEN, changing nothing'}`, async () => {
          const row = await rowFor(role);
          const token = tokenOf(role);
          const before = await total();
          const response = await rest(operation, row, token);
          if (allowed(operation)) {
            expect(response.status, response.text).to.equal(SUCCESS[operation]);
          } else {
            expectError(response, 403, 'FORBIDDEN', 'forbidden');
            expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
            expect(await total(), 'a row was made').to.equal(before);
          }
        });
      }

      for (const operation of graphqlOperations) {
        it(`${role}: GraphQL ${fieldOf[operation]} is ${allowed(operation) ? 'allowed' : 'a FORBIDDEN error, changing nothing'}`, async () => {
          const row = await rowFor(role);
          const variables: Record<string, Json> = {
            one: { id: row.id },
            list: {},
            create: { input: graphqlInput(resource, await validBody(world(), resource)) },
            update: { id: row.id, input: graphqlInput(resource, await validBody(world(), resource, 1)) },
            delete: { id: row.id },
          }[operation];
          const response = await graphql<Record<string, { status?: number } | null>>(
            world().service.url,
            docs[operation],
            {
              token: tokenOf(role),
              variables: variables as Record<string, unknown>,
            },
          );
          if (allowed(operation)) {
            const answer = gqlData(response)[fieldOf[operation]];
            expect(answer, response.text).to.be.an('object');
            if (operation === 'create') expect(answer!.status).to.equal(201);
            if (operation === 'update' || operation === 'delete') expect(answer!.status).to.equal(200);
          } else {
            gqlError(response, 'FORBIDDEN');
            expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
          }
        });
      }
    }

    it('answers an unknown id with 404 NOT_FOUND to every role that may read, as to everyone else', async () => {
      for (const role of ROLES.filter((r) => policyHas(r, 'GET'))) {
        const answer = await world().api.get(itemPath(resource, UNKNOWN_ID), { token: tokenOf(role) });
        expectError(answer, 404, 'NOT_FOUND', `${resource.human} not found`, { detail: `id: ${UNKNOWN_ID}` });
      }
    });

    it('refuses a role a write is denied before its body or the id is looked at: 403, not 400 or 404', async () => {
      const row = await createRow(world(), resource);
      const api = world().api;
      for (const role of ROLES) {
        const token = tokenOf(role);
        const responses: ApiResponse[] = [];
        if (!policyHas(role, 'POST')) {
          responses.push(await api.post(collection, { token, json: await refusedBody() }));
          responses.push(await api.post(collection, { token, json: {} }));
          responses.push(await api.post(collection, { token, raw: '[1]', headers: JSON_HEADERS }));
        }
        if (!policyHas(role, 'PUT')) {
          responses.push(await api.put(itemPath(resource, row.id), { token, json: await refusedBody() }));
          for (const id of [UNKNOWN_ID, 'abc'])
            responses.push(await api.put(itemPath(resource, id), { token, json: await validBody(world(), resource) }));
        }
        if (!policyHas(role, 'DELETE')) {
          for (const id of [UNKNOWN_ID, 'abc']) responses.push(await api.delete(itemPath(resource, id), { token }));
        }
        for (const response of responses) expectError(response, 403, 'FORBIDDEN', 'forbidden');
      }
      expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
    });

    it('answers a role allowed to write a refused body with 400 VALIDATION_ERROR (it passed authentication and RBAC)', async () => {
      for (const role of ROLES) {
        const row = await rowFor(role);
        const token = tokenOf(role);
        if (policyHas(role, 'POST'))
          expectValidation(await world().api.post(collection, { token, json: await refusedBody() }), refusedFields);
        if (policyHas(role, 'PUT'))
          expectValidation(
            await world().api.put(itemPath(resource, row.id), { token, json: await refusedBody() }),
            refusedFields,
          );
        expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
      }
    });

    const promoted = ROLES.find((role) => policyHas(role, 'POST'));
    if (!policyHas('user', 'POST') && promoted) {
      it(`gives a user the ${promoted}'s writes within a second of the role change, with the token it already has`, async () => {
        const account = await register(world().api);
        const create = async () =>
          world().api.post(collection, { token: account.access_token, json: await validBody(world(), resource) });
        expectError(await create(), 403, 'FORBIDDEN', 'forbidden');
        await setRole(world().service, account.user.id, promoted);
        const started = Date.now();
        let status = (await create()).status;
        while (status !== 201 && Date.now() - started < 1500) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          status = (await create()).status;
        }
        expect(status, 'the old token, once the role changed').to.equal(201);
      });
    }

    describe('without a valid token', () => {
      it('answers every REST operation without a token with 401 "missing bearer token"', async () => {
        const row = await createRow(world(), resource);
        for (const operation of restOperations)
          expectUnauthorized(await rest(operation, row, undefined), 'missing bearer token');
        expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
      });

      it('answers a malformed, foreign or refresh token with 401 "invalid token" on every operation', async () => {
        const row = await createRow(world(), resource);
        const { user } = world().accounts;
        for (const token of ['not-a-token', `${user.access_token}x`, user.refresh_token]) {
          for (const operation of restOperations) expectUnauthorized(await rest(operation, row, token));
        }
        expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
      });

      it('answers 401 before 404 and before validation', async () => {
        const api = world().api;
        const missing = 'missing bearer token';
        expectUnauthorized(await api.get(itemPath(resource, UNKNOWN_ID)), missing);
        expectUnauthorized(await api.get(itemPath(resource, 'abc')), missing);
        if (resource.search) expectUnauthorized(await api.get(`${collection}/search`), missing);
        expectUnauthorized(await api.get(`${collection}?page=0`), missing);
        expectUnauthorized(await api.post(collection, { json: await refusedBody() }), missing);
        expectUnauthorized(await api.put(itemPath(resource, 'abc'), { json: await refusedBody() }), missing);
        expectUnauthorized(await api.delete(itemPath(resource, UNKNOWN_ID)), missing);
      });
    });

    describe('the order of faults (docs/http.md)', () => {
      const tokens = (): (string | undefined)[] => [
        undefined,
        ...[barred, writer].flatMap((r) => (r ? [tokenOf(r)] : [])),
      ];

      it('answers malformed JSON with 400 BAD_REQUEST before 401 or 403', async () => {
        const row = await createRow(world(), resource);
        for (const token of tokens()) {
          for (const [method, path] of [
            ['POST', collection],
            ['PUT', itemPath(resource, row.id)],
            ['DELETE', itemPath(resource, row.id)],
          ] as const) {
            const response = await world().api.send(method, path, {
              raw: `{"${resource.fields[0]!.name}": `,
              headers: JSON_HEADERS,
              ...(token ? { token } : {}),
            });
            expectError(response, 400, 'BAD_REQUEST', 'invalid request body');
          }
        }
        expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
      });

      it('answers a non-JSON content type with 415 before 401 or 403', async () => {
        const row = await createRow(world(), resource);
        for (const token of [...tokens(), 'not-a-token']) {
          for (const [method, path] of [
            ['POST', collection],
            ['PUT', itemPath(resource, row.id)],
          ] as const) {
            const response = await world().api.send(method, path, {
              raw: 'a=1',
              headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
              ...(token ? { token } : {}),
            });
            expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
          }
        }
        expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
      });

      it(`judges a well-formed but refused body after authentication and RBAC: 401 without a token${barred ? `, 403 for ${barred}` : ''}, 400 for a role that may create`, async () => {
        const json = await refusedBody();
        const api = world().api;
        expectUnauthorized(await api.post(collection, { json }), 'missing bearer token');
        if (barred)
          expectError(await api.post(collection, { json, token: tokenOf(barred) }), 403, 'FORBIDDEN', 'forbidden');
        if (writer) expectValidation(await api.post(collection, { json, token: tokenOf(writer) }), refusedFields);
      });
    });

    if (resource.search) {
      describe(`search follows GET ${collection}/{id} in the policy`, () => {
        /** Runs `check` as a role with only `rule`, added through the admin API and removed after. */
        async function withRule(role: string, path: string, check: (token: string) => Promise<void>): Promise<void> {
          const api = world().api;
          const rule = { role, path, action: 'GET' };
          expect((await api.post('/api/v1/admin/policies', { token: admin(), json: rule })).status).to.equal(201);
          try {
            await check((await accountWithRole(world().service, api, role)).access_token);
          } finally {
            expect((await api.delete('/api/v1/admin/policies', { token: admin(), json: rule })).status).to.equal(204);
          }
        }

        it(`lets a role allowed only GET ${collection}/{id} search and read, but not list or write`, async () => {
          const searchField = resource.fields.find((f) => f.name === resource.search)!;
          const value = searchable(searchField, `zq${randomUUID().replace(/-/g, '').slice(0, 8)}`);
          const row = await createRow(world(), resource, { [searchField.name]: value });
          await withRule('viewer', `${collection}/{id}`, async (token) => {
            const api = world().api;
            const found = await api.get(`${collection}/search?${new URLSearchParams({ q: value }).toString()}`, {
              token,
            });
            expect(dataOf<RowJson[]>(found)).to.deep.equal([row]);
            expect(dataOf<RowJson>(await api.get(itemPath(resource, row.id), { token }))).to.deep.equal(row);
            expectError(await api.get(collection, { token }), 403, 'FORBIDDEN', 'forbidden');
            const put = await api.put(itemPath(resource, row.id), {
              token,
              json: await validBody(world(), resource, 1),
            });
            expectError(put, 403, 'FORBIDDEN', 'forbidden');
          });
        });

        it(`does not let a role allowed only the list (GET ${collection}) search or read`, async () => {
          const row = await createRow(world(), resource);
          await withRule('lister', collection, async (token) => {
            const api = world().api;
            expect(dataOf<RowJson[]>(await api.get(collection, { token })).map((r) => r.id)).to.include(row.id);
            expectError(await api.get(`${collection}/search?q=a`, { token }), 403, 'FORBIDDEN', 'forbidden');
            expectError(await api.get(itemPath(resource, row.id), { token }), 403, 'FORBIDDEN', 'forbidden');
          });
        });
      });
    }

    if (barred) {
      describe(`no variant of a path lets ${barred} write`, () => {
        const segments = collection.split('/');
        const last = segments.pop()!;
        const base = segments.join('/'); // `/api/v1`
        const percent = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;
        const capital = `${last[0]!.toUpperCase()}${last.slice(1)}`;
        const collectionVariants = [
          `${base}/${capital}`,
          `/API/v1/${last}`,
          `/api/V1/${last}`,
          `${base}/${last.toUpperCase()}`,
          `${collection}/`,
          `${base}//${last}`,
          `/${collection}`,
          `${collection}//`,
          `${base}/${percent(last[0]!)}${last.slice(1)}`,
          `${base}/${last.slice(0, -1)}${percent(last.at(-1)!)}`,
          `${base}/./${last}`,
          `${collection}/.`,
          `${base}/profile/../${last}`,
          `${collection};x`,
          `${collection}%20`,
          `${collection}%00`,
          `${collection}?x=/api/v1/profile`,
        ];
        const itemVariants = (id: string) => [
          `${base}/${capital}/${id}`,
          `${collection}/${id}/`,
          `${base}//${last}/${id}`,
          `${collection}//${id}`,
          `${collection}/./${id}`,
          `${base}/${percent(last[0]!)}${last.slice(1)}/${id}`,
          `${collection}/${id.toUpperCase()}`,
          `${collection}/${id}%2F`,
          `${collection}/%2e%2e/${last}/${id}`,
          `${base}/profile/../${last}/${id}`,
          `${collection}/${id};x`,
        ];
        const expectRefused = (status: number, text: string, what: string) => {
          expect(status, `${what}: ${status} ${text}`).to.be.within(400, 499);
          expect((JSON.parse(text) as ErrorJson).success, what).to.equal(false);
        };
        const headers = () => ({ Authorization: `Bearer ${tokenOf(barred)}`, 'Content-Type': 'application/json' });

        it('POST to a variant of the collection is never 2xx, and makes nothing', async () => {
          const before = await total();
          for (const path of collectionVariants) {
            const body = JSON.stringify(await validBody(world(), resource));
            const response = await rawRequest(world().service.url, 'POST', path, headers(), body);
            expectRefused(response.status, response.text, `POST ${path}`);
          }
          expect(await total()).to.equal(before);
        });

        it('PUT and DELETE on a variant of an item path are never 2xx, and change nothing', async () => {
          const row = await createRow(world(), resource);
          const body = JSON.stringify(await validBody(world(), resource, 1));
          for (const path of itemVariants(row.id)) {
            const put = await rawRequest(world().service.url, 'PUT', path, headers(), body);
            expectRefused(put.status, put.text, `PUT ${path}`);
            const del = await rawRequest(world().service.url, 'DELETE', path, {
              Authorization: headers().Authorization,
            });
            expectRefused(del.status, del.text, `DELETE ${path}`);
          }
          expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
        });

        it('without a token, no variant is 2xx either', async () => {
          const row = await createRow(world(), resource);
          for (const path of [...collectionVariants, ...itemVariants(row.id)]) {
            const response = await rawRequest(world().service.url, 'DELETE', path);
            expectRefused(response.status, response.text, `DELETE ${path}`);
          }
          expect(dataOf<RowJson>(await current(row.id))).to.deep.equal(row);
        });
      });
    }
  });
}
