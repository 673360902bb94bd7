import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startSameWork } from '../../bench/sameWork.js';
import { SCENARIOS } from '../../bench/scenarios.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';
import { emptyTables } from '../adapters/outbound/contracts/databases.js';
import { productsChanged } from '../support/resources/productBodies.js';

interface Answer {
  status: number;
  contentType: string | null;
  etag: string | null;
  wwwAuthenticate: string | null;
  body: string;
}

async function answered(response: Response): Promise<Answer> {
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    etag: response.headers.get('etag'),
    wwwAuthenticate: response.headers.get('www-authenticate'),
    body: await response.text(),
  };
}

async function answer(
  base: string,
  path: string,
  init: { method?: string; token?: string; json?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
  return answered(response);
}

/** A request as the bench's scenarios describe one (bench/scenarios.ts). */
type BenchRequest = ReturnType<(typeof SCENARIOS)[number]['request']>;

async function send(base: string, request: BenchRequest): Promise<Answer> {
  const { method, path, headers, body } = request;
  return answered(await fetch(`${base}${path}`, { method, headers: headers ?? {}, ...(body ? { body } : {}) }));
}

/** The bench's GraphQL request, with `authorization` for its Authorization header (none when undefined). */
function benchGraphQL(authorization: string | undefined, query?: string): BenchRequest {
  const request = SCENARIOS.find((s) => s.name === 'graphql')!.request({ token: '', productId: '' });
  const { authorization: _bearer, ...headers } = request.headers ?? {};
  return {
    ...request,
    headers: authorization === undefined ? headers : { ...headers, authorization },
    ...(query === undefined ? {} : { body: JSON.stringify({ query }) }),
  };
}

/** A created product's answer with what differs between two creates (id, timestamps) blanked. */
const withoutIdentity = (a: Answer): Answer => ({
  ...a,
  body: a.body.replace(/"id":"[0-9a-f-]{36}"/, '"id":"…"').replace(/"(created_at|updated_at)":"[^"]+"/g, '"$1":"…"'),
});

/**
 * The benchmark's same-work app (bench/sameWork.ts) answers the three routes and the GraphQL query
 * it stands in for byte for byte as Portico does — status, content type, ETag and body — on the
 * same database, so
 * that Portico's ratio to it compares the same work. On an SQLite file and, when
 * SVC_TEST_POSTGRES_URL is set, on PostgreSQL.
 */
describe('bench: the same-work app answers as Portico does', function () {
  // The reference app serves products as Portico ships them; a project that changed them on purpose
  // (generate field product …) compares nothing like with like.
  before(async function () {
    if (await productsChanged()) this.skip();
  });
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-same-work-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [engine, url] of [
    ['an SQLite file', (): string | undefined => `sqlite:${join(dir, 'same-work.sqlite')}`],
    ['PostgreSQL', (): string | undefined => externalService('SVC_TEST_POSTGRES_URL')],
  ] as const) {
    describe(`on ${engine}`, () => {
      let service: RunningService | undefined;
      let same: Awaited<ReturnType<typeof startSameWork>> | undefined;
      let token: string;
      let refreshToken: string;
      let id: string;

      before(async function () {
        const databaseUrl = url();
        if (!databaseUrl) {
          console.log('      (skipped: needs SVC_TEST_POSTGRES_URL)');
          this.skip();
        }
        // PostgreSQL's test database is shared: start from empty tables.
        await emptyTables(databaseUrl!);
        const config = testConfig({
          SVC_DATABASE_URL: databaseUrl!,
          SVC_AUTH_BCRYPT_COST: '4',
          SVC_RATE_LIMIT_ENABLED: 'false',
          SVC_API_MODE: 'both',
        });
        service = await startService(config, { logger: silentLogger() });
        const account = await accountWithRole(service, new Api(service.url), 'moderator');
        token = account.access_token;
        refreshToken = account.refresh_token;
        same = await startSameWork({
          databaseUrl: databaseUrl!,
          secret: config.jwt.secret,
          issuer: config.jwt.issuer,
          port: 0,
        });

        // 25 products through Portico, and 3 more sharing one timestamp (ties broken by id).
        for (let n = 0; n < 25; n += 1) {
          const created = await answer(service.url, '/api/v1/products', {
            method: 'POST',
            token,
            json: { name: `Product ${n}`, price: n + 0.99 },
          });
          expect(created.status, created.body).to.equal(201);
          id ??= (JSON.parse(created.body) as { data: { id: string } }).data.id;
        }
        const at = new Date(Date.now() - 60_000);
        const stamp = databaseUrl!.startsWith('sqlite:') ? at.getTime() : at.toISOString();
        for (let n = 0; n < 3; n += 1) {
          await service.database.orm.em
            .getConnection()
            .execute(
              'insert into products (id, name, price, version, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
              [randomUUID(), `Tied ${n}`, 7.5, 3, stamp, stamp],
            );
        }
      });
      after(async () => {
        await same?.close();
        await service?.stop();
      });

      const both = async (
        path: string,
        init: { method?: string; token?: string; json?: unknown } = {},
      ): Promise<[Answer, Answer]> => [await answer(service!.url, path, init), await answer(same!.url, path, init)];

      it('GET /api/v1/products/{id}: the same bytes (200 and ETag; 404 for an unknown or malformed id)', async () => {
        for (const path of [
          `/api/v1/products/${id}`,
          `/api/v1/products/${id.toUpperCase()}`,
          `/api/v1/products/${randomUUID()}`,
          '/api/v1/products/not-an-id',
        ]) {
          const [portico, sameWork] = await both(path, { token });
          expect(sameWork, path).to.deep.equal(portico);
        }
        expect((await answer(same!.url, `/api/v1/products/${id}`, { token })).status).to.equal(200);
      });

      it('GET /api/v1/products: the same bytes for the first, a later and an empty page, and other sorts', async () => {
        for (const query of [
          '',
          '?per_page=20',
          '?per_page=10&page=3',
          '?page=9',
          '?sort=price&order=asc&per_page=5',
          '?sort=name&order=DESC',
          '?per_page=100',
        ]) {
          const [portico, sameWork] = await both(`/api/v1/products${query}`, { token });
          expect(portico.status, portico.body).to.equal(200);
          expect(sameWork, query).to.deep.equal(portico);
        }
      });

      it('POST /api/v1/products: the same answer but for id and timestamps, and each reads what the other wrote', async () => {
        const json = { name: '  Benchmark created product ', price: 12.5 };
        const [portico, sameWork] = await both('/api/v1/products', { method: 'POST', token, json });
        expect(portico.status, portico.body).to.equal(201);
        expect(withoutIdentity(sameWork)).to.deep.equal(withoutIdentity(portico));
        for (const created of [portico, sameWork]) {
          const path = `/api/v1/products/${(JSON.parse(created.body) as { data: { id: string } }).data.id}`;
          const [a, b] = await both(path, { token });
          expect(a.body, 'as created').to.equal(created.body);
          expect(b).to.deep.equal(a);
        }
        for (const invalid of [{}, { name: '', price: 0 }, { name: 'x'.repeat(201), price: '10' }]) {
          const [a, b] = await both('/api/v1/products', { method: 'POST', token, json: invalid });
          expect(b, JSON.stringify(invalid)).to.deep.equal(a);
        }
      });

      it('401 alike without a token, with a refresh token, a forged one or a malformed header', async () => {
        const forged = `${token.slice(0, -4)}AAAA`;
        for (const bad of [undefined, refreshToken, forged]) {
          const [portico, sameWork] = await both(`/api/v1/products/${id}`, bad === undefined ? {} : { token: bad });
          expect(portico.status).to.equal(401);
          expect(sameWork).to.deep.equal(portico);
        }
        const [portico, sameWork] = await both('/api/v1/products', { token: 'not a token' });
        expect(sameWork).to.deep.equal(portico);
      });

      it("POST /graphql: the same bytes for the bench's query, and for other pages and sorts", async () => {
        const bench = benchGraphQL(`Bearer ${token}`);
        const [portico, sameWork] = [await send(service!.url, bench), await send(same!.url, bench)];
        expect(portico.status, portico.body).to.equal(200);
        expect(JSON.parse(portico.body)).to.have.nested.property('data.products.data').with.length(20);
        expect(sameWork).to.deep.equal(portico);
        const fields =
          'data { id name price createdAt updatedAt } pagination { totalRecords recordsPerPage totalPages currentPage }';
        for (const query of [
          `{ products { ${fields} } }`,
          `{ products(pagination: {limit: 10, page: 3}) { ${fields} } }`,
          `{ products(pagination: {page: 9}) { ${fields} } }`,
          `{ products(sort: {sortByField: "price", sortOrientation: ASC}, pagination: {limit: 5}) { ${fields} } }`,
          `{ products(sort: {sortByField: "name"}) { pagination { totalPages } data { name id } } }`,
          `query List($limit: Int) { products(pagination: {limit: $limit}) { data { id } } }`,
        ]) {
          const request = benchGraphQL(`Bearer ${token}`, query);
          const [a, b] = [await send(service!.url, request), await send(same!.url, request)];
          expect(a.status, a.body).to.equal(200);
          expect(a.body, query).not.to.include('"errors"');
          expect(b, query).to.deep.equal(a);
        }
      });

      it('POST /graphql: the same refusal (a GraphQL error in a 200) without a token, with a refresh token, a forged one or a malformed header', async () => {
        const forged = `${token.slice(0, -4)}AAAA`;
        for (const authorization of [undefined, `Bearer ${refreshToken}`, `Bearer ${forged}`, 'not a token']) {
          const request = benchGraphQL(authorization);
          const [portico, sameWork] = [await send(service!.url, request), await send(same!.url, request)];
          expect(portico.status).to.equal(200);
          expect(JSON.parse(portico.body)).to.have.nested.property('errors[0].extensions.code', 'UNAUTHORIZED');
          expect(sameWork, String(authorization)).to.deep.equal(portico);
        }
      });
    });
  }
});
