import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api, dataOf, expectValidation, type ApiResponse } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { graphql } from '../support/graphql.js';
import { silentLogger } from '../support/logger.js';
import { PRODUCT_BODY, productsChanged } from '../support/resources/productBodies.js';

/**
 * What only products have, end to end, through HTTP: the answers the contract fixes for them byte
 * for byte (docs/errors.md, docs/lists.md, docs/api-document.md), the price as a finite JSON number above 0, the name's 1 to 200
 * characters, and the search on name. What every resource does — products included — is held by
 * the shared suites (test/support/resource/*.ts), which test/resources/products.test.ts runs
 * for products.
 */

/** A product as the REST API shows it (docs/lists.md). */
interface ProductJson {
  id: string;
  name: string;
  price: number;
  created_at: string;
  updated_at: string;
}

interface PageJson {
  data: ProductJson[];
  meta: { page: number; per_page: number; total: number; total_pages: number };
}

const PRODUCTS = '/api/v1/products';
const SEARCH = `${PRODUCTS}/search`;
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const NAME_RULE = 'must be 1 to 200 characters';
const PRICE_RULE = 'must be a number greater than 0';

/** A marker no other test puts in a name, so that a search finds only this test's products. */
const marker = (): string => `mk${randomUUID().replace(/-/g, '').slice(0, 12)}`;

describe('products (end to end): what only products have', function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let token: string;

  const item = (id: string) => `${PRODUCTS}/${id}`;
  const post = (json: unknown) => api.post(PRODUCTS, { token, json });
  const create = async (name: string, price: number): Promise<ProductJson> =>
    dataOf<ProductJson>(await post({ ...PRODUCT_BODY, name, price }), 201);
  const fetchProduct = async (id: string): Promise<ProductJson> =>
    dataOf<ProductJson>(await api.get(item(id), { token }));
  const put = (id: string, json: unknown) => api.put(item(id), { token, json });
  /** The products whose name contains `q`, as one page of 100. */
  const search = async (q: string): Promise<PageJson> => {
    const response = await api.get(`${SEARCH}?${new URLSearchParams({ q, per_page: '100' }).toString()}`, { token });
    expect(response.status, response.text).to.equal(200);
    return response.body as PageJson;
  };
  const idsFound = async (q: string): Promise<string[]> => (await search(q)).data.map((p) => p.id).sort();

  before(async () => {
    service = await startService(
      testConfig({ SVC_API_MODE: 'both', SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }),
      { logger: silentLogger() },
    );
    api = new Api(service.url);
    // The least privileged role that may write products.
    token = (await accountWithRole(service, api, 'moderator')).access_token;
  });
  after(async () => service.stop());

  // Runs first, on the freshly started service: the list holds only what this test makes. Products
  // changed on purpose (`generate field product …`) answer other bytes: the test is then skipped.
  describe('the answers the contract fixes, byte for byte (docs/errors.md, docs/lists.md, docs/api-document.md)', () => {
    const json = (response: ApiResponse, status: number, etag: string | null) => {
      expect(response.status, response.text).to.equal(status);
      expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(response.headers.get('etag')).to.equal(etag);
      return response.text;
    };

    it('REST: the product {id, name, price, created_at, updated_at} with price a JSON number; the list, a refusal, a 404 and a 412', async function () {
      if (await productsChanged()) this.skip();
      const created = await api.post(PRODUCTS, {
        token,
        raw: '{"name":"  Walnut desk ","price":19.99}',
        headers: JSON_HEADERS,
      });
      const { id, created_at: at } = dataOf<ProductJson>(created, 201);
      const product = `{"id":"${id}","name":"Walnut desk","price":19.99,"created_at":"${at}","updated_at":"${at}"}`;
      expect(at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(json(created, 201, '"1"')).to.equal(`{"success":true,"data":${product}}`);
      expect(json(await api.get(item(id), { token }), 200, '"1"')).to.equal(`{"success":true,"data":${product}}`);
      expect(json(await api.get(PRODUCTS, { token }), 200, null)).to.equal(
        `{"success":true,"data":[${product}],"meta":{"page":1,"per_page":20,"total":1,"total_pages":1}}`,
      );
      expect(json(await post({ name: '', price: '10' }), 400, null)).to.equal(
        '{"success":false,"error":{"code":"VALIDATION_ERROR","message":"validation failed","fields":' +
          `[{"field":"name","message":"${NAME_RULE}"},{"field":"price","message":"${PRICE_RULE}"}]}}`,
      );
      const unknown = randomUUID();
      expect(json(await api.get(item(unknown), { token }), 404, null)).to.equal(
        `{"success":false,"error":{"code":"NOT_FOUND","message":"Product not found","detail":"id: ${unknown}"}}`,
      );
      const stale = await api.put(item(id), { token, json: { price: 5 }, headers: { 'If-Match': '"2"' } });
      expect(json(stale, 412, null)).to.equal(
        '{"success":false,"error":{"code":"PRECONDITION_FAILED",' +
          `"message":"product is not at the expected version; read it again","detail":"id: ${id}"}}`,
      );
    });

    it('GraphQL: product(id) answers the same product under its GraphQL names, price a Float', async function () {
      if (await productsChanged()) this.skip();
      const { id, created_at: at } = await create('Oak chair', 5);
      const response = await graphql(
        service.url,
        'query ($id: ID!) { product(id: $id) { id name price createdAt updatedAt } }',
        {
          token,
          variables: { id },
        },
      );
      expect(response.status, response.text).to.equal(200);
      expect(response.text).to.equal(
        `{"data":{"product":{"id":"${id}","name":"Oak chair","price":5,"createdAt":"${at}","updatedAt":"${at}"}}}`,
      );
    });

    it('the API document: a product, its create and its update body, with their rules', async function () {
      if (await productsChanged()) this.skip();
      const document = (await api.get('/api/v1/openapi.json')).body as {
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
        components: { schemas: Record<string, unknown> };
      };
      const name = { type: 'string', minLength: 1, maxLength: 200, description: 'Must be 1 to 200 characters' };
      const price = { type: 'number', exclusiveMinimum: 0, description: 'Must be a number greater than 0' };
      const instant = { type: 'string', format: 'date-time', description: 'An instant in RFC 3339, in UTC (`Z`)' };
      expect(document.components.schemas.Product).to.deep.equal({
        type: 'object',
        properties: {
          id: { type: 'string', format: 'uuid', description: 'A UUID' },
          name,
          price,
          created_at: instant,
          updated_at: instant,
        },
        required: ['id', 'name', 'price', 'created_at', 'updated_at'],
        additionalProperties: false,
      });
      const body = (path: string, method: string) =>
        document.paths[path]?.[method]?.requestBody?.content['application/json']?.schema as {
          properties: unknown;
          required?: string[];
        };
      expect(body(PRODUCTS, 'post')).to.deep.include({ properties: { name, price }, required: ['name', 'price'] });
      expect(body(`${PRODUCTS}/{id}`, 'put').properties).to.deep.equal({ name, price });
      expect(body(`${PRODUCTS}/{id}`, 'put').required).to.equal(undefined);
    });
  });

  describe('price: a finite JSON number greater than 0', () => {
    it('keeps a price exactly as the JSON number sent', async () => {
      for (const price of [19.99, 0.1, 0.01, 1234567.891, 1e-9, 7, 2.5e10, Number.MAX_VALUE]) {
        const product = await create(`Priced ${price}`, price);
        expect(product.price, String(price)).to.equal(price);
        expect((await fetchProduct(product.id)).price, String(price)).to.equal(price);
      }
    });

    it('refuses -0, -0.01, a numeric or empty string, an object with a number or an array of one, on create and update', async () => {
      const product = await create(`Unpriced ${marker()}`, 1);
      for (const price of [-0, -0.01, '19.99', '', { amount: 10 }, [10]]) {
        expectValidation(await post({ ...PRODUCT_BODY, price }), [{ field: 'price', message: PRICE_RULE }]);
        expectValidation(await put(product.id, { price }), [{ field: 'price', message: PRICE_RULE }]);
      }
      expect(await fetchProduct(product.id)).to.deep.equal(product);
    });

    it('refuses a price JSON reads as Infinity, -Infinity or 0 (1e400, -1e400, 1E+400, 1e-400), storing nothing', async () => {
      const name = `Overflow ${marker()}`;
      const product = await create(name, 1);
      // The other fields as JSON writes them (`"name":"…",…}`), after a price it cannot write.
      const others = JSON.stringify({ ...PRODUCT_BODY, name, price: undefined }).slice(1);
      for (const price of ['1e400', '-1e400', '1E+400', '1e-400']) {
        const refused = [{ field: 'price', message: PRICE_RULE }];
        expectValidation(
          await api.post(PRODUCTS, { token, raw: `{"price": ${price}, ${others}`, headers: JSON_HEADERS }),
          refused,
        );
        expectValidation(
          await api.put(item(product.id), { token, raw: `{"price": ${price}}`, headers: JSON_HEADERS }),
          refused,
        );
      }
      expect((await search(name)).data).to.deep.equal([product]);
    });
  });

  describe('name: 1 to 200 characters, counted after trimming', () => {
    it('accepts 1 and 200 characters, an astral or accented one counting as one', async () => {
      for (const name of ['x', 'n'.repeat(200), '😀'.repeat(200), 'é'.repeat(200)]) {
        expect((await create(`  ${name}  `, 1)).name).to.equal(name);
      }
    });

    it('refuses a blank name and 201 characters, on create and update', async () => {
      const product = await create(`Named ${marker()}`, 1);
      for (const name of ['   ', '\t\n', 'n'.repeat(201), '😀'.repeat(201), ` ${'é'.repeat(201)} `]) {
        expectValidation(await post({ ...PRODUCT_BODY, name }), [{ field: 'name', message: NAME_RULE }]);
        expectValidation(await put(product.id, { name }), [{ field: 'name', message: NAME_RULE }]);
      }
      expect(await fetchProduct(product.id)).to.deep.equal(product);
    });
  });

  describe('GET /api/v1/products/search: names containing q', () => {
    it('finds names containing q, case-insensitively, anywhere in the name', async () => {
      const tag = marker();
      const blue = await create(`Blue Widget ${tag}`, 10);
      const small = await create(`small widget ${tag}`, 20);
      const gadget = await create(`Gadget ${tag}`, 30);
      const widgets = [blue.id, small.id].sort();
      expect(await idsFound(`widget ${tag}`)).to.deep.equal(widgets);
      expect(await idsFound(`WIDGET ${tag.toUpperCase()}`)).to.deep.equal(widgets);
      expect(await idsFound(`wIdGeT ${tag}`)).to.deep.equal(widgets);
      expect(await idsFound(`dget ${tag}`)).to.deep.equal([blue.id, small.id, gadget.id].sort());
      expect(await idsFound(`Gadget ${tag}`)).to.deep.equal([gadget.id]);
      expect(await idsFound(tag)).to.deep.equal([blue.id, small.id, gadget.id].sort());
      expect(await idsFound(`${tag}x`)).to.deep.equal([]);
      // Every name found contains q, whatever its case.
      for (const p of (await search('widget')).data) expect(p.name.toLowerCase()).to.include('widget');
    });

    it('is case-insensitive beyond ASCII, and finds a name by itself', async () => {
      const tag = marker();
      const eclair = await create(`Éclair Ñandú ${tag}`, 4.5);
      for (const q of [
        `Éclair Ñandú ${tag}`,
        `éclair ñandú ${tag}`,
        `ÉCLAIR ÑANDÚ ${tag.toUpperCase()}`,
        `ñandú ${tag}`,
      ])
        expect(await idsFound(q), q).to.deep.equal([eclair.id]);
    });

    it('takes % and _ (and ! \\ [ * ?) literally', async () => {
      const tag = marker();
      const percent = await create(`100% wool ${tag}`, 1);
      const plain = await create(`1000 wool ${tag}`, 1);
      const underscore = await create(`snake_case ${tag}`, 1);
      const other = await create(`snakeXcase ${tag}`, 1);
      const bang = await create(`wow! ${tag}`, 1);
      const slash = await create(`back\\slash ${tag}`, 1);
      const bracket = await create(`box [b] ${tag}`, 1);
      const star = await create(`star*${tag}`, 1);
      const question = await create(`why? ${tag}`, 1);
      for (const [q, expected] of [
        [`0% wool ${tag}`, percent],
        [`snake_case ${tag}`, underscore],
        ['e_c', underscore],
        [`w! ${tag}`, bang],
        ['k\\s', slash],
        [`[b] ${tag}`, bracket],
        ['x [b', bracket],
        [`r*${tag}`, star],
        [`y? ${tag}`, question],
        [`1000 wool ${tag}`, plain],
        [`snakeXcase ${tag}`, other],
      ] as const) {
        expect(await idsFound(q), q).to.deep.equal([expected.id]);
      }
      // Alone, each matches only names that contain it.
      for (const q of ['%', '_', '!', '%%', '__', '*', '?', '[', '[]', '\\']) {
        for (const p of (await search(q)).data) expect(p.name, q).to.include(q);
      }
      expect((await search('%')).data.map((p) => p.id))
        .to.include(percent.id)
        .and.not.include(plain.id);
    });
  });
});
