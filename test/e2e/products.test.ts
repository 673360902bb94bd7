import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { PRODUCT_PATHS } from '../../src/adapters/inbound/productUseCases.js';
import { emptyTables } from '../adapters/outbound/contracts/databases.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import {
  accountWithRole,
  Api,
  dataOf,
  expectError,
  expectValidation,
  type ApiResponse,
  type FieldJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';
import { sortFieldsOf } from '../support/resource/descriptor.js';
import { productResource } from '../support/resources/product.js';
import { PRODUCT_BODY, without } from '../support/resources/productBodies.js';

/** A product as the REST API shows it (docs/lists.md). */
interface ProductJson {
  id: string;
  name: string;
  price: number;
  created_at: string;
  updated_at: string;
}

interface MetaJson {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

type SortField = 'name' | 'price' | 'created_at' | 'updated_at';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PRODUCT_KEYS = ['id', ...productResource.fields.map((f) => f.name), 'created_at', 'updated_at'].sort();
const JSON_HEADERS = { 'Content-Type': 'application/json' };

const PRODUCTS = PRODUCT_PATHS.collection;
const SEARCH = PRODUCT_PATHS.search;
const item = (id: string): string => `${PRODUCTS}/${encodeURIComponent(id)}`;

const NAME_RULE = 'must be 1 to 200 characters';
const PRICE_RULE = 'must be a number greater than 0';
const PAGE_RULE = 'must be an integer from 1 to 999999999';
const PER_PAGE_RULE = 'must be an integer from 1 to 100';
const SORT_RULE = `must be one of ${sortFieldsOf(productResource).join(', ')}`;
const ORDER_RULE = 'must be asc or desc';
const Q_RULE = 'must be 1 to 100 characters';

const nameField = (message = NAME_RULE): FieldJson => ({ field: 'name', message });
const priceField = (message = PRICE_RULE): FieldJson => ({ field: 'price', message });

/** A query string from pairs, so that a parameter can be repeated or left empty. */
function query(path: string, params: [string, string][]): string {
  return params.length === 0 ? path : `${path}?${new URLSearchParams(params).toString()}`;
}

/** A marker no other test puts in a name, so that a search finds only this test's products. */
function marker(): string {
  return `mk${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function expectProductShape(product: ProductJson): void {
  expect(Object.keys(product).sort()).to.deep.equal(PRODUCT_KEYS);
  expect(product.id).to.be.a('string').and.match(UUID);
  expect(product.name).to.be.a('string');
  expect(product.price).to.be.a('number');
  expect(product.created_at).to.be.a('string').and.match(RFC3339);
  expect(product.updated_at).to.be.a('string').and.match(RFC3339);
}

/** Asserts a list answer: 200, success, an array of products and exactly this meta. */
function listOf(response: ApiResponse, meta: MetaJson): ProductJson[] {
  expect(response.status, response.text).to.equal(200);
  const body = response.body as { success: boolean; data: ProductJson[]; meta: MetaJson };
  expect(Object.keys(body).sort(), response.text).to.deep.equal(['data', 'meta', 'success']);
  expect(body.success).to.equal(true);
  expect(body.meta, response.text).to.deep.equal(meta);
  expect(body.data).to.be.an('array');
  body.data.forEach(expectProductShape);
  return body.data;
}

function metaOf(response: ApiResponse): MetaJson {
  expect(response.status, response.text).to.equal(200);
  return (response.body as { meta: MetaJson }).meta;
}

const sortValue = (product: ProductJson, field: SortField): string | number =>
  field === 'created_at' || field === 'updated_at' ? Date.parse(product[field]) : product[field];

/** Asserts `rows` are ordered by `field` in `order`, ties broken by id in the same direction. */
function expectOrdered(rows: ProductJson[], field: SortField, order: 'asc' | 'desc'): void {
  const sign = order === 'asc' ? 1 : -1;
  for (let i = 1; i < rows.length; i += 1) {
    const a = rows[i - 1]!;
    const b = rows[i]!;
    const x = sortValue(a, field);
    const y = sortValue(b, field);
    const describe = `${field} ${order} at ${i}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`;
    if (x === y) expect(sign * (a.id < b.id ? -1 : 1), `tie not broken by id: ${describe}`).to.equal(-1);
    else expect(sign * (x < y ? -1 : 1), describe).to.equal(-1);
  }
}

describe('products (end to end)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let token: string;

  const create = async (name: string, price: number): Promise<ProductJson> =>
    dataOf<ProductJson>(await api.post(PRODUCTS, { token, json: { ...PRODUCT_BODY, name, price } }), 201);
  const fetchProduct = async (id: string): Promise<ProductJson> =>
    dataOf<ProductJson>(await api.get(item(id), { token }));
  const post = (json: unknown) => api.post(PRODUCTS, { token, json });
  const postRaw = (raw: string) => api.post(PRODUCTS, { token, raw, headers: JSON_HEADERS });
  const put = (id: string, json: unknown) => api.put(item(id), { token, json });
  const search = (q: string, params: [string, string][] = []) =>
    api.get(query(SEARCH, [['q', q], ...params]), { token });

  /** Every page of a list (or search) from page 1 to total_pages, checking each page's meta. */
  async function walk(
    path: string,
    params: [string, string][],
    perPage: number,
  ): Promise<{ rows: ProductJson[]; meta: MetaJson }> {
    const first = metaOf(await api.get(query(path, [...params, ['per_page', String(perPage)]]), { token }));
    const rows: ProductJson[] = [];
    for (let page = 1; page <= Math.max(first.total_pages, 1); page += 1) {
      const response = await api.get(query(path, [...params, ['per_page', String(perPage)], ['page', String(page)]]), {
        token,
      });
      const meta = { page, per_page: perPage, total: first.total, total_pages: first.total_pages };
      const data = listOf(response, meta);
      expect(data.length).to.equal(Math.max(0, Math.min(perPage, first.total - perPage * (page - 1))));
      rows.push(...data);
    }
    expect(rows.length).to.equal(first.total);
    return { rows, meta: first };
  }

  before(async () => {
    service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    api = new Api(service.url);
    // The least privileged role that may write products.
    token = (await accountWithRole(service, api, 'moderator')).access_token;
  });
  after(async () => service.stop());

  // Runs first, on the freshly started service: nothing has been created yet.
  describe('an empty store', () => {
    it('lists nothing: 200, data [], total 0 and total_pages 0', async () => {
      expect(
        listOf(await api.get(PRODUCTS, { token }), { page: 1, per_page: 20, total: 0, total_pages: 0 }),
      ).to.deep.equal([]);
      expect(
        listOf(await api.get(`${PRODUCTS}?page=3&per_page=5`, { token }), {
          page: 3,
          per_page: 5,
          total: 0,
          total_pages: 0,
        }),
      ).to.deep.equal([]);
      expect(listOf(await search('a'), { page: 1, per_page: 20, total: 0, total_pages: 0 })).to.deep.equal([]);
    });
  });

  describe('POST /api/v1/products', () => {
    it('answers 201 with exactly {id, name, price, created_at, updated_at}, and GET shows the same product', async () => {
      const before = Date.now();
      const response = await post({ ...PRODUCT_BODY, name: 'Walnut desk', price: 19.99 });
      const product = dataOf<ProductJson>(response, 201);
      expectProductShape(product);
      expect(product).to.include({ name: 'Walnut desk', price: 19.99 });
      expect(product.created_at).to.equal(product.updated_at);
      expect(Date.parse(product.created_at)).to.be.within(before - 5_000, Date.now() + 5_000);
      expect(Object.keys(response.body as object).sort()).to.deep.equal(['data', 'success']);
      // A JSON number, not a string.
      expect(response.text).to.include('"price":19.99');
      expect(await fetchProduct(product.id)).to.deep.equal(product);
    });

    it('gives every product its own id', async () => {
      const products = await Promise.all([1, 2, 3, 4, 5].map((n) => create(`Twin ${n}`, n)));
      expect(new Set(products.map((p) => p.id)).size).to.equal(5);
    });

    it('trims the name before validating and storing it (inner spaces kept)', async () => {
      const product = await create('  \t Big   oak table \n ', 250);
      expect(product.name).to.equal('Big   oak table');
      expect((await fetchProduct(product.id)).name).to.equal('Big   oak table');
    });

    it('keeps a price exactly as the JSON number sent', async () => {
      for (const price of [19.99, 0.1, 0.01, 1234567.891, 1e-9, 7, 2.5e10, Number.MAX_VALUE]) {
        const product = await create(`Priced ${price}`, price);
        expect(product.price, String(price)).to.equal(price);
        expect((await fetchProduct(product.id)).price, String(price)).to.equal(price);
      }
    });

    it('accepts names of 1 and 200 characters (counted as characters, after trimming)', async () => {
      for (const name of ['x', 'n'.repeat(200), '😀'.repeat(200), 'é'.repeat(200)]) {
        expect((await create(`  ${name}  `, 1)).name).to.equal(name);
      }
    });

    it('says "is required" for each missing field, all at once', async () => {
      expectValidation(await post(without(PRODUCT_BODY, 'name', 'price')), [
        nameField('is required'),
        priceField('is required'),
      ]);
      expectValidation(await post(without({ ...PRODUCT_BODY, price: 10 }, 'name')), [nameField('is required')]);
      expectValidation(await post(without({ ...PRODUCT_BODY, name: 'Lamp' }, 'price')), [priceField('is required')]);
    });

    it('refuses an empty, blank, 201-character or non-string name', async () => {
      for (const name of [
        '',
        '   ',
        '\t\n',
        'n'.repeat(201),
        '😀'.repeat(201),
        42,
        null,
        true,
        ['Lamp'],
        { name: 'Lamp' },
      ]) {
        expectValidation(await post({ ...PRODUCT_BODY, name, price: 10 }), [nameField()]);
      }
    });

    it('refuses a price that is a string, zero, negative, null, a boolean, an object, an array or a numeric string', async () => {
      for (const price of ['10', '19.99', '', 0, -0, -1, -0.01, null, true, false, {}, { amount: 10 }, [10]]) {
        expectValidation(await post({ ...PRODUCT_BODY, name: 'Lamp', price }), [priceField()]);
      }
    });

    it('lists every failing field at once', async () => {
      expectValidation(await post({ ...PRODUCT_BODY, name: '', price: '10' }), [nameField(), priceField()]);
      expectValidation(await post({ ...PRODUCT_BODY, name: 'n'.repeat(201), price: 0 }), [nameField(), priceField()]);
      expectValidation(await post(without({ ...PRODUCT_BODY, name: null }, 'price')), [
        nameField(),
        priceField('is required'),
      ]);
    });

    it('refuses a price that JSON parses as Infinity (1e400), -Infinity or 0 (1e-400), and stores nothing', async () => {
      const name = `Overflow ${marker()}`;
      // The other fields as JSON writes them (`"name":"…",…}`), after a price it cannot write.
      const others = JSON.stringify(without({ ...PRODUCT_BODY, name }, 'price')).slice(1);
      for (const price of ['1e400', '-1e400', '1E+400', '1e-400']) {
        expectValidation(await postRaw(`{"price": ${price}, ${others}`), [priceField()]);
      }
      expect(listOf(await search(name), { page: 1, per_page: 20, total: 0, total_pages: 0 })).to.deep.equal([]);
    });

    it('answers a body that is not a JSON object with 400, never 2xx or 500', async () => {
      expectValidation(await postRaw('[{"name": "Lamp", "price": 10}]'), [
        { field: 'body', message: 'must be a JSON object' },
      ]);
      expectValidation(await postRaw('[]'), [{ field: 'body', message: 'must be a JSON object' }]);
      expectValidation(await api.post(PRODUCTS, { token }), [{ field: 'body', message: 'must be a JSON object' }]);
      for (const raw of ['42', '"Lamp"', 'null', 'true']) {
        const response = await postRaw(raw);
        expect(response.status, `${raw}: ${response.text}`).to.equal(400);
        const { error } = response.body as { error: { code: string } };
        expect(['BAD_REQUEST', 'VALIDATION_ERROR'], raw).to.include(error.code);
      }
    });

    it('answers malformed JSON with 400 BAD_REQUEST "invalid request body"', async () => {
      for (const raw of [
        '{"name": "Lamp", "price": ',
        '{name: "Lamp"}',
        "{'name': 'Lamp', 'price': 1}",
        '{"price": NaN, "name": "Lamp"}',
      ]) {
        expectError(await postRaw(raw), 400, 'BAD_REQUEST', 'invalid request body');
      }
    });

    it('answers a non-JSON content type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const response = await api.post(PRODUCTS, {
          token,
          raw: 'name=Lamp&price=10',
          headers: { 'Content-Type': type },
        });
        expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
      }
      dataOf<ProductJson>(
        await api.post(PRODUCTS, {
          token,
          raw: JSON.stringify({ ...PRODUCT_BODY, name: 'Charset', price: 3 }),
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
        }),
        201,
      );
    });

    it('refuses a name with a lone surrogate (400 on name), on create and update; nothing is stored as U+FFFD', async () => {
      const lone = [{ field: 'name', message: 'must not contain unpaired surrogates' }];
      const tag = marker();
      // JSON.stringify writes the lone surrogate as the escape `\ud800`, the way a client sends it.
      for (const name of [`p\ud800q ${tag}`, `\udc00${tag}`, `${tag}\udbff`])
        expectValidation(await post({ ...PRODUCT_BODY, name, price: 1 }), lone);
      const product = await create(`Pen ${tag}`, 2);
      expectValidation(await put(product.id, { name: `p\ud800q ${tag}` }), lone);
      expect(await fetchProduct(product.id)).to.deep.equal(product);
      expect(metaOf(await search(tag)).total, 'only the well-formed product exists').to.equal(1);
      // A well-formed surrogate pair is an ordinary character.
      expect((await create(`\ud83d\udd8a ${tag}`, 3)).name).to.equal(`🖊 ${tag}`);
    });

    it('refuses invisible characters in the name (zero-width, bidi controls, BOM), even at its ends', async () => {
      const invisible = [{ field: 'name', message: 'must not contain invisible characters' }];
      for (const name of [
        'Pe\u200bn',
        'Pen\u200d',
        '\u202eneP',
        'Pen \u2066x\u2069',
        '\ufeffPen',
        'Pe\u00adn',
        'Pen\u200e',
      ]) {
        expectValidation(await post({ ...PRODUCT_BODY, name, price: 1 }), invisible);
      }
      const product = await create(`Visible ${marker()}`, 2);
      expectValidation(await put(product.id, { name: 'In\u2060visible' }), invisible);
      expect(await fetchProduct(product.id)).to.deep.equal(product);
    });

    it('ignores unknown fields, including id, timestamps and version', async () => {
      const response = await post({
        ...PRODUCT_BODY,
        name: 'Stool',
        price: 30,
        id: 'mine',
        created_at: '2000-01-01T00:00:00Z',
        updated_at: '2000-01-01T00:00:00Z',
        version: 99,
        colour: 'red',
      });
      const product = dataOf<ProductJson>(response, 201);
      expectProductShape(product);
      expect(product.id).not.to.equal('mine');
      expect(Date.parse(product.created_at)).to.be.greaterThan(Date.parse('2020-01-01T00:00:00Z'));
      expect(product.updated_at).to.equal(product.created_at);
      expect(await fetchProduct(product.id)).to.deep.equal(product);
    });
  });

  describe('GET /api/v1/products/{id}', () => {
    it('answers 200 with the product', async () => {
      const product = await create('Bookshelf', 120.5);
      const response = await api.get(item(product.id), { token });
      expect(dataOf<ProductJson>(response)).to.deep.equal(product);
      expect(Object.keys(response.body as object).sort()).to.deep.equal(['data', 'success']);
    });

    it('answers 404 NOT_FOUND "Product not found" with detail "id: <id>" for an unknown UUID', async () => {
      const id = randomUUID();
      expectError(await api.get(item(id), { token }), 404, 'NOT_FOUND', 'Product not found', { detail: `id: ${id}` });
    });

    it('answers an id that is not a UUID like an unknown one (404, detail names it), never 400 or 500', async () => {
      for (const id of [
        'abc',
        '1',
        "' or 1=1",
        "1' OR '1'='1",
        '%',
        '00000000-0000-0000-0000-00000000000g',
        `${randomUUID()}x`,
      ]) {
        expectError(await api.get(item(id), { token }), 404, 'NOT_FOUND', 'Product not found', { detail: `id: ${id}` });
      }
    });

    it('answers an id holding invalid UTF-8 (a percent-encoded lone surrogate) like any non-UUID id: 404, never a 500', async () => {
      for (const raw of ['%ED%A0%80', 'a%ED%B0%80', '%FF']) {
        // The router cannot decode it, so the detail names it as sent.
        expectError(await api.get(`${PRODUCTS}/${raw}`, { token }), 404, 'NOT_FOUND', 'Product not found', {
          detail: `id: ${raw}`,
        });
      }
    });

    it('never takes /search for an id: without q it is 400 naming q, not 404', async () => {
      expectValidation(await api.get(SEARCH, { token }), [{ field: 'q', message: 'is required' }]);
      expect(dataOf<ProductJson[]>(await search('a'))).to.be.an('array');
    });

    it('never takes /search for an id on a write either: PUT, DELETE and POST there are 405 with Allow, token or not', async () => {
      for (const auth of [{ token }, {}]) {
        for (const response of [
          await api.put(SEARCH, { ...auth, json: { price: 1 } }),
          await api.delete(SEARCH, auth),
        ]) {
          expectError(response, 405, 'METHOD_NOT_ALLOWED', 'method not allowed');
          const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim());
          expect(allow).to.include('GET').and.not.include('PUT').and.not.include('DELETE');
        }
        const post = await api.post(SEARCH, { ...auth, json: { name: 'Search', price: 1 } });
        expectError(post, 405, 'METHOD_NOT_ALLOWED', 'method not allowed');
        expect((post.headers.get('allow') ?? '').split(',').map((m) => m.trim())).to.include('GET');
      }
    });
  });

  describe('PUT /api/v1/products/{id}', () => {
    it('changes only the fields present: the name alone, then the price alone', async () => {
      const product = await create('Armchair', 300);
      await sleep(5);
      const renamed = dataOf<ProductJson>(await put(product.id, { name: '  Leather armchair ' }));
      expect(renamed).to.include({
        id: product.id,
        name: 'Leather armchair',
        price: 300,
        created_at: product.created_at,
      });
      await sleep(5);
      const repriced = dataOf<ProductJson>(await put(product.id, { price: 275.25 }));
      expect(repriced).to.include({
        id: product.id,
        name: 'Leather armchair',
        price: 275.25,
        created_at: product.created_at,
      });
      expect(await fetchProduct(product.id)).to.deep.equal(repriced);
      const both = dataOf<ProductJson>(await put(product.id, { name: 'Chair', price: 9.99, colour: 'ignored' }));
      expect(both).to.include({ name: 'Chair', price: 9.99 });
      expectProductShape(both);
    });

    it('moves updated_at forward on a change and never touches created_at', async () => {
      const product = await create('Clock', 45);
      await sleep(5);
      const first = dataOf<ProductJson>(await put(product.id, { price: 46 }));
      expect(first.created_at).to.equal(product.created_at);
      expect(Date.parse(first.updated_at)).to.be.greaterThan(Date.parse(product.updated_at));
      await sleep(5);
      const second = dataOf<ProductJson>(await put(product.id, { name: 'Wall clock' }));
      expect(second.created_at).to.equal(product.created_at);
      expect(Date.parse(second.updated_at)).to.be.greaterThan(Date.parse(first.updated_at));
      expect(await fetchProduct(product.id)).to.deep.equal(second);
    });

    it('answers {} with 200 and the product unchanged (updated_at included)', async () => {
      const product = await create('Vase', 15);
      await sleep(5);
      expect(dataOf<ProductJson>(await put(product.id, {}))).to.deep.equal(product);
      expect(dataOf<ProductJson>(await put(product.id, { colour: 'blue', id: randomUUID() }))).to.deep.equal(product);
      expect(await fetchProduct(product.id)).to.deep.equal(product);
    });

    it('validates every present field: price 0 and name "" are refused, all failures at once, nothing changes', async () => {
      const product = await create('Rug', 80);
      const cases: [unknown, FieldJson[]][] = [
        [{ price: 0 }, [priceField()]],
        [{ price: -5 }, [priceField()]],
        [{ price: '10' }, [priceField()]],
        [{ price: null }, [priceField()]],
        [{ price: true }, [priceField()]],
        [{ price: {} }, [priceField()]],
        [{ name: '' }, [nameField()]],
        [{ name: '   ' }, [nameField()]],
        [{ name: 'n'.repeat(201) }, [nameField()]],
        [{ name: null }, [nameField()]],
        [{ name: 7 }, [nameField()]],
        [{ name: '', price: 0 }, [nameField(), priceField()]],
        // One good field does not get through when the other fails.
        [{ name: 'New rug', price: 0 }, [priceField()]],
      ];
      for (const [json, fields] of cases) expectValidation(await put(product.id, json), fields);
      expectValidation(await api.put(item(product.id), { token, raw: '{"price": 1e400}', headers: JSON_HEADERS }), [
        priceField(),
      ]);
      expect(await fetchProduct(product.id)).to.deep.equal(product);
    });

    it('answers a body of the wrong type with 400 and changes nothing', async () => {
      const product = await create('Mirror', 60);
      expectValidation(await api.put(item(product.id), { token, raw: '[{"price": 1}]', headers: JSON_HEADERS }), [
        { field: 'body', message: 'must be a JSON object' },
      ]);
      expectError(
        await api.put(item(product.id), { token, raw: '{"price": ', headers: JSON_HEADERS }),
        400,
        'BAD_REQUEST',
        'invalid request body',
      );
      for (const raw of ['5', '"Mirror"', 'null']) {
        const response = await api.put(item(product.id), { token, raw, headers: JSON_HEADERS });
        expect(response.status, `${raw}: ${response.text}`).to.equal(400);
      }
      expectError(
        await api.put(item(product.id), { token, raw: 'price=1', headers: { 'Content-Type': 'text/plain' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'request body must be application/json',
      );
      expect(await fetchProduct(product.id)).to.deep.equal(product);
    });

    it('answers 404 for an unknown or non-UUID id', async () => {
      const id = randomUUID();
      expectError(await put(id, { price: 5 }), 404, 'NOT_FOUND', 'Product not found', { detail: `id: ${id}` });
      expectError(await put(id, {}), 404, 'NOT_FOUND', 'Product not found', { detail: `id: ${id}` });
      expectError(await put('abc', { price: 5 }), 404, 'NOT_FOUND', 'Product not found', { detail: 'id: abc' });
      expectError(await api.get(item(id), { token }), 404, 'NOT_FOUND', 'Product not found', { detail: `id: ${id}` });
    });
  });

  describe('DELETE /api/v1/products/{id}', () => {
    it('answers 204 with no body; then GET, PUT and DELETE answer 404', async () => {
      const product = await create(`Doomed ${marker()}`, 5);
      const response = await api.delete(item(product.id), { token });
      expect(response.status).to.equal(204);
      expect(response.text).to.equal('');
      expect(response.body).to.equal(undefined);
      const notFound = { detail: `id: ${product.id}` };
      expectError(await api.get(item(product.id), { token }), 404, 'NOT_FOUND', 'Product not found', notFound);
      expectError(await put(product.id, { price: 6 }), 404, 'NOT_FOUND', 'Product not found', notFound);
      expectError(await api.delete(item(product.id), { token }), 404, 'NOT_FOUND', 'Product not found', notFound);
      expect(listOf(await search(product.name), { page: 1, per_page: 20, total: 0, total_pages: 0 })).to.deep.equal([]);
      const all = await walk(PRODUCTS, [], 100);
      expect(all.rows.map((p) => p.id)).not.to.include(product.id);
    });

    it('deletes only the product named', async () => {
      const keep = await create('Keeper', 1);
      const drop = await create('Dropper', 1);
      expect((await api.delete(item(drop.id), { token })).status).to.equal(204);
      expect(await fetchProduct(keep.id)).to.deep.equal(keep);
    });

    it('answers 404 for an unknown or non-UUID id', async () => {
      const id = randomUUID();
      expectError(await api.delete(item(id), { token }), 404, 'NOT_FOUND', 'Product not found', {
        detail: `id: ${id}`,
      });
      expectError(await api.delete(item('1'), { token }), 404, 'NOT_FOUND', 'Product not found', { detail: 'id: 1' });
    });
  });

  describe('GET /api/v1/products (lists)', () => {
    const prefix = marker();
    let mine: ProductJson[] = [];

    before(async () => {
      // Equal names and equal prices, so that ties must be broken by id; created in bursts so
      // that several share a creation instant.
      const specs: [string, number][] = [];
      for (let i = 0; i < 12; i += 1)
        specs.push([`${prefix} ${['alpha', 'bravo', 'alpha', 'charlie'][i % 4]}`, [3, 1.5, 3, 12][i % 4]!]);
      mine = [];
      for (let burst = 0; burst < specs.length; burst += 4) {
        mine.push(...(await Promise.all(specs.slice(burst, burst + 4).map(([name, price]) => create(name, price)))));
      }
      // Some updated later than created, some (in a burst) at the same instant.
      await Promise.all(mine.slice(0, 4).map((p) => put(p.id, { price: p.price })));
    });

    it('defaults to page 1, per_page 20, sort created_at, order desc', async () => {
      const everything = await walk(
        PRODUCTS,
        [
          ['sort', 'created_at'],
          ['order', 'desc'],
        ],
        100,
      );
      const total = everything.rows.length;
      expect(total).to.be.greaterThan(20);
      const response = await api.get(PRODUCTS, { token });
      const data = listOf(response, { page: 1, per_page: 20, total, total_pages: Math.ceil(total / 20) });
      expect(Object.keys(response.body as object).sort()).to.deep.equal(['data', 'meta', 'success']);
      expect(data).to.deep.equal(everything.rows.slice(0, 20));
      expectOrdered(data, 'created_at', 'desc');
      const explicit = await api.get(
        query(PRODUCTS, [
          ['page', '1'],
          ['per_page', '20'],
          ['sort', 'created_at'],
          ['order', 'desc'],
        ]),
        { token },
      );
      expect((explicit.body as { data: unknown }).data).to.deep.equal(data);
    });

    it('computes total_pages as ceil(total / per_page)', async () => {
      const { total } = metaOf(await api.get(PRODUCTS, { token }));
      for (const perPage of [1, 3, 7, 10, total, total + 1, 100]) {
        const meta = metaOf(await api.get(`${PRODUCTS}?per_page=${perPage}`, { token }));
        expect(meta, `per_page ${perPage}`).to.deep.equal({
          page: 1,
          per_page: perPage,
          total,
          total_pages: Math.ceil(total / perPage),
        });
      }
    });

    for (const field of ['name', 'price', 'created_at', 'updated_at'] as const) {
      for (const [order, spelling] of [
        ['asc', 'asc'],
        ['desc', 'desc'],
        ['asc', 'ASC'],
        ['desc', 'Desc'],
      ] as const) {
        it(`sort=${field}&order=${spelling}: every row in order, ties broken by id, each row once`, async () => {
          const { rows } = await walk(
            PRODUCTS,
            [
              ['sort', field],
              ['order', spelling],
            ],
            7,
          );
          expect(new Set(rows.map((p) => p.id)).size).to.equal(rows.length);
          // Names elsewhere in the store are any text; this suite's own (lower-case ASCII, equal
          // prefix) are ordered the same under any collation.
          if (field === 'name')
            expectOrdered(
              rows.filter((p) => p.name.startsWith(prefix)),
              field,
              order,
            );
          else expectOrdered(rows, field, order);
          expect(
            rows
              .filter((p) => p.name.startsWith(prefix))
              .map((p) => p.id)
              .sort(),
          ).to.deep.equal(mine.map((p) => p.id).sort());
        });
      }
    }

    it('order defaults to desc with any sort, and sort to created_at with any order', async () => {
      const { total } = metaOf(await api.get(PRODUCTS, { token }));
      const meta = { page: 1, per_page: 100, total, total_pages: Math.ceil(total / 100) };
      expectOrdered(listOf(await api.get(`${PRODUCTS}?sort=price&per_page=100`, { token }), meta), 'price', 'desc');
      expectOrdered(listOf(await api.get(`${PRODUCTS}?order=asc&per_page=100`, { token }), meta), 'created_at', 'asc');
    });

    it('a page past the end is 200 with empty data and the right meta', async () => {
      const { total } = metaOf(await api.get(PRODUCTS, { token }));
      const lastPage = Math.ceil(total / 10);
      expect(
        listOf(await api.get(`${PRODUCTS}?per_page=10&page=${lastPage + 1}`, { token }), {
          page: lastPage + 1,
          per_page: 10,
          total,
          total_pages: lastPage,
        }),
      ).to.deep.equal([]);
      expect(
        listOf(await api.get(`${PRODUCTS}?page=999999999`, { token }), {
          page: 999999999,
          per_page: 20,
          total,
          total_pages: Math.ceil(total / 20),
        }),
      ).to.deep.equal([]);
      const last = listOf(await api.get(`${PRODUCTS}?per_page=10&page=${lastPage}`, { token }), {
        page: lastPage,
        per_page: 10,
        total,
        total_pages: lastPage,
      });
      expect(last.length).to.equal(total - 10 * (lastPage - 1));
    });

    const invalid: [string, [string, string][], FieldJson[]][] = [
      ['page 0', [['page', '0']], [{ field: 'page', message: PAGE_RULE }]],
      ['page -1', [['page', '-1']], [{ field: 'page', message: PAGE_RULE }]],
      ['page abc', [['page', 'abc']], [{ field: 'page', message: PAGE_RULE }]],
      ['page 1.5', [['page', '1.5']], [{ field: 'page', message: PAGE_RULE }]],
      ['page empty', [['page', '']], [{ field: 'page', message: PAGE_RULE }]],
      ['page 1e3', [['page', '1e3']], [{ field: 'page', message: PAGE_RULE }]],
      ['page 0x10', [['page', '0x10']], [{ field: 'page', message: PAGE_RULE }]],
      ['page beyond 999999999', [['page', '1000000000']], [{ field: 'page', message: PAGE_RULE }]],
      ['per_page 0', [['per_page', '0']], [{ field: 'per_page', message: PER_PAGE_RULE }]],
      ['per_page 101', [['per_page', '101']], [{ field: 'per_page', message: PER_PAGE_RULE }]],
      ['per_page abc', [['per_page', 'abc']], [{ field: 'per_page', message: PER_PAGE_RULE }]],
      ['per_page -5', [['per_page', '-5']], [{ field: 'per_page', message: PER_PAGE_RULE }]],
      ['per_page 2.5', [['per_page', '2.5']], [{ field: 'per_page', message: PER_PAGE_RULE }]],
      ['sort id', [['sort', 'id']], [{ field: 'sort', message: SORT_RULE }]],
      ['sort password', [['sort', 'password']], [{ field: 'sort', message: SORT_RULE }]],
      ['sort empty', [['sort', '']], [{ field: 'sort', message: SORT_RULE }]],
      ['sort version', [['sort', 'version']], [{ field: 'sort', message: SORT_RULE }]],
      ['sort createdAt', [['sort', 'createdAt']], [{ field: 'sort', message: SORT_RULE }]],
      ['sort with SQL', [['sort', 'name; drop table products']], [{ field: 'sort', message: SORT_RULE }]],
      ['order up', [['order', 'up']], [{ field: 'order', message: ORDER_RULE }]],
      ['order empty', [['order', '']], [{ field: 'order', message: ORDER_RULE }]],
      ['order ascending', [['order', 'ascending']], [{ field: 'order', message: ORDER_RULE }]],
      [
        'page repeated',
        [
          ['page', '1'],
          ['page', '2'],
        ],
        [{ field: 'page', message: PAGE_RULE }],
      ],
      [
        'page repeated with equal values',
        [
          ['page', '1'],
          ['page', '1'],
        ],
        [{ field: 'page', message: PAGE_RULE }],
      ],
      [
        'per_page repeated',
        [
          ['per_page', '10'],
          ['per_page', '20'],
        ],
        [{ field: 'per_page', message: PER_PAGE_RULE }],
      ],
      [
        'sort repeated',
        [
          ['sort', 'name'],
          ['sort', 'price'],
        ],
        [{ field: 'sort', message: SORT_RULE }],
      ],
      [
        'order repeated',
        [
          ['order', 'asc'],
          ['order', 'desc'],
        ],
        [{ field: 'order', message: ORDER_RULE }],
      ],
      [
        'all four bad at once',
        [
          ['page', '0'],
          ['per_page', '101'],
          ['sort', 'id'],
          ['order', 'up'],
        ],
        [
          { field: 'page', message: PAGE_RULE },
          { field: 'per_page', message: PER_PAGE_RULE },
          { field: 'sort', message: SORT_RULE },
          { field: 'order', message: ORDER_RULE },
        ],
      ],
      [
        'two bad among good ones',
        [
          ['page', '2'],
          ['per_page', 'abc'],
          ['sort', 'price'],
          ['order', 'sideways'],
        ],
        [
          { field: 'per_page', message: PER_PAGE_RULE },
          { field: 'order', message: ORDER_RULE },
        ],
      ],
    ];
    for (const [title, params, fields] of invalid) {
      it(`${title} → 400 VALIDATION_ERROR naming the parameter`, async () => {
        expectValidation(await api.get(query(PRODUCTS, params), { token }), fields);
      });
    }

    it('accepts the boundaries: page 1, per_page 1 and 100', async () => {
      const { total } = metaOf(await api.get(PRODUCTS, { token }));
      expect(
        listOf(await api.get(`${PRODUCTS}?page=1&per_page=1`, { token }), {
          page: 1,
          per_page: 1,
          total,
          total_pages: total,
        }),
      ).to.have.length(1);
      expect(
        listOf(await api.get(`${PRODUCTS}?per_page=100`, { token }), {
          page: 1,
          per_page: 100,
          total,
          total_pages: Math.ceil(total / 100),
        }),
      ).to.have.length(Math.min(total, 100));
    });
  });

  describe('pages never repeat or skip a row', () => {
    const prefix = marker();
    let ids: string[] = [];

    before(async () => {
      // 45 products over only 4 distinct prices and 3 distinct names: almost every row ties.
      const created: ProductJson[] = [];
      for (let burst = 0; burst < 45; burst += 9) {
        const batch = Array.from({ length: 9 }, (_, k) => burst + k);
        created.push(
          ...(await Promise.all(
            batch.map((i) => create(`${prefix} ${['x', 'y', 'z'][i % 3]}`, [4.99, 4.99, 10, 25][i % 4]!)),
          )),
        );
      }
      ids = created.map((p) => p.id);
      expect(new Set(ids).size).to.equal(45);
    });

    for (const [sort, order] of [
      ['price', 'asc'],
      ['price', 'desc'],
      ['name', 'asc'],
      ['created_at', 'desc'],
      ['updated_at', 'asc'],
    ] as const) {
      it(`walking the whole list 10 per page by ${sort} ${order} shows each id exactly once`, async () => {
        const { rows, meta } = await walk(
          PRODUCTS,
          [
            ['sort', sort],
            ['order', order],
          ],
          10,
        );
        const seen = rows.map((p) => p.id);
        expect(new Set(seen).size, 'an id appeared twice').to.equal(seen.length);
        expect(seen.length).to.equal(meta.total);
        expect(meta.total_pages).to.equal(Math.ceil(meta.total / 10));
        for (const id of ids)
          expect(
            seen.filter((s) => s === id),
            id,
          ).to.have.length(1);
        if (sort !== 'name') expectOrdered(rows, sort, order);
      });

      it(`walking the search for the 45 10 per page by ${sort} ${order} gives exactly the 45`, async () => {
        const { rows, meta } = await walk(
          SEARCH,
          [
            ['q', prefix],
            ['sort', sort],
            ['order', order],
          ],
          10,
        );
        expect(meta).to.deep.equal({ page: 1, per_page: 10, total: 45, total_pages: 5 });
        expect(rows.map((p) => p.id).sort()).to.deep.equal([...ids].sort());
        expectOrdered(rows, sort, order);
      });
    }
  });

  describe('GET /api/v1/products/search', () => {
    it('answers a q a client cannot send well-formed (percent-encoded lone surrogate, invalid UTF-8) with 200, never a 500', async () => {
      // Node decodes invalid UTF-8 in the query to U+FFFD: what arrives is well-formed text.
      for (const raw of ['%ED%A0%80', '%ED%B0%80x', '%FF', '%C3']) {
        const response = await api.get(`${SEARCH}?q=${raw}`, { token });
        expect(response.status, `${raw}: ${response.text}`).to.equal(200);
        for (const p of (response.body as { data: ProductJson[] }).data) expect(p.name, raw).to.include('\ufffd');
      }
      const list = await api.get(`${PRODUCTS}?sort=%ED%A0%80`, { token });
      expect(list.status, list.text).to.equal(400);
    });

    it('finds names containing q, case-insensitively, anywhere in the name', async () => {
      const tag = marker();
      const blue = await create(`Blue Widget ${tag}`, 10);
      const small = await create(`small widget ${tag}`, 20);
      const gadget = await create(`Gadget ${tag}`, 30);
      const ids = async (q: string) =>
        listOf(await search(q, [['per_page', '100']]), metaOf(await search(q, [['per_page', '100']]))).map((p) => p.id);
      expect((await ids(`widget ${tag}`)).sort()).to.deep.equal([blue.id, small.id].sort());
      expect((await ids(`WIDGET ${tag.toUpperCase()}`)).sort()).to.deep.equal([blue.id, small.id].sort());
      expect((await ids(`wIdGeT ${tag}`)).sort()).to.deep.equal([blue.id, small.id].sort());
      expect(await ids(`dget ${tag}`)).to.have.members([blue.id, small.id, gadget.id]);
      expect(await ids(`Gadget ${tag}`)).to.deep.equal([gadget.id]);
      expect(await ids(tag)).to.have.members([blue.id, small.id, gadget.id]);
      expect(await ids(`${tag}x`)).to.deep.equal([]);
      // Every name found contains q, whatever its case.
      const found = (await search('widget', [['per_page', '100']])).body as { data: ProductJson[] };
      for (const p of found.data) expect(p.name.toLowerCase()).to.include('widget');
    });

    it('is case-insensitive beyond ASCII, and finds a name by itself', async () => {
      const tag = marker();
      const eclair = await create(`Éclair Ñandú ${tag}`, 4.5);
      for (const q of [
        `Éclair Ñandú ${tag}`,
        `éclair ñandú ${tag}`,
        `ÉCLAIR ÑANDÚ ${tag.toUpperCase()}`,
        `ñandú ${tag}`,
      ]) {
        expect(
          listOf(await search(q), { page: 1, per_page: 20, total: 1, total_pages: 1 }).map((p) => p.id),
          q,
        ).to.deep.equal([eclair.id]);
      }
    });

    it('trims q and matches it as a substring', async () => {
      const tag = marker();
      const product = await create(`Trimmed ${tag}`, 1);
      expect(
        listOf(await search(`  ${tag}  `), { page: 1, per_page: 20, total: 1, total_pages: 1 }).map((p) => p.id),
      ).to.deep.equal([product.id]);
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
      const only = async (q: string, expected: ProductJson[]) =>
        expect(
          listOf(await search(q, [['per_page', '100']]), {
            page: 1,
            per_page: 100,
            total: expected.length,
            total_pages: expected.length > 0 ? 1 : 0,
          })
            .map((p) => p.id)
            .sort(),
          q,
        ).to.deep.equal(expected.map((p) => p.id).sort());
      await only(`0% wool ${tag}`, [percent]);
      await only(`snake_case ${tag}`, [underscore]);
      await only(`e_c`, [underscore]);
      await only(`w! ${tag}`, [bang]);
      await only(`k\\s`, [slash]);
      await only(`[b] ${tag}`, [bracket]);
      await only(`x [b`, [bracket]);
      await only(`r*${tag}`, [star]);
      await only(`y? ${tag}`, [question]);
      await only(`1000 wool ${tag}`, [plain]);
      await only(`snakeXcase ${tag}`, [other]);
      // Alone, % and _ match only names that contain them.
      for (const q of ['%', '_', '!', '%%', '__', '*', '?', '[', '[]', '\\']) {
        const found = (await search(q, [['per_page', '100']])).body as { data: ProductJson[] };
        for (const p of found.data) expect(p.name, q).to.include(q);
      }
      const ids = ((await search('%', [['per_page', '100']])).body as { data: ProductJson[] }).data.map((p) => p.id);
      expect(ids).to.include(percent.id).and.not.include(plain.id);
    });

    it('is paginated like the list, with sort and order honoured', async () => {
      const tag = marker();
      const made: ProductJson[] = [];
      for (const [i, price] of [5, 3, 9, 3, 7].entries()) {
        made.push(await create(`Paged ${['b', 'a', 'c', 'a', 'd'][i]} ${tag}`, price));
        await sleep(3); // distinct creation instants, so the default order is the reverse of creation
      }
      const page1 = listOf(
        await search(tag, [
          ['per_page', '2'],
          ['sort', 'price'],
          ['order', 'asc'],
        ]),
        { page: 1, per_page: 2, total: 5, total_pages: 3 },
      );
      const page2 = listOf(
        await search(tag, [
          ['per_page', '2'],
          ['page', '2'],
          ['sort', 'price'],
          ['order', 'ASC'],
        ]),
        { page: 2, per_page: 2, total: 5, total_pages: 3 },
      );
      const page3 = listOf(
        await search(tag, [
          ['per_page', '2'],
          ['page', '3'],
          ['sort', 'price'],
          ['order', 'Asc'],
        ]),
        { page: 3, per_page: 2, total: 5, total_pages: 3 },
      );
      expect(
        listOf(
          await search(tag, [
            ['per_page', '2'],
            ['page', '4'],
          ]),
          { page: 4, per_page: 2, total: 5, total_pages: 3 },
        ),
      ).to.deep.equal([]);
      const walked = [...page1, ...page2, ...page3];
      expect(walked.map((p) => p.price)).to.deep.equal([3, 3, 5, 7, 9]);
      expectOrdered(walked, 'price', 'asc');
      expect(walked.map((p) => p.id).sort()).to.deep.equal(made.map((p) => p.id).sort());
      const byNameDesc = listOf(
        await search(tag, [
          ['sort', 'name'],
          ['order', 'DESC'],
        ]),
        { page: 1, per_page: 20, total: 5, total_pages: 1 },
      );
      expect(byNameDesc.map((p) => p.name.split(' ')[1])).to.deep.equal(['d', 'c', 'b', 'a', 'a']);
      expectOrdered(byNameDesc, 'name', 'desc');
      // Defaults: created_at desc.
      const defaults = listOf(await search(tag), { page: 1, per_page: 20, total: 5, total_pages: 1 });
      expectOrdered(defaults, 'created_at', 'desc');
      expect(defaults.map((p) => p.id)).to.deep.equal([...made].reverse().map((p) => p.id));
    });

    it('answers no match with 200, data [] and total_pages 0', async () => {
      expect(
        listOf(await search(`nothing-${marker()}`), { page: 1, per_page: 20, total: 0, total_pages: 0 }),
      ).to.deep.equal([]);
    });

    it('takes q of 1 and 100 characters', async () => {
      metaOf(await search('a'));
      metaOf(await search('q'.repeat(100)));
      metaOf(await search('😀'.repeat(100)));
    });

    it('refuses a missing, empty, blank, 101-character or repeated q with 400 naming q', async () => {
      expectValidation(await api.get(SEARCH, { token }), [{ field: 'q', message: 'is required' }]);
      expectValidation(await api.get(`${SEARCH}?page=1`, { token }), [{ field: 'q', message: 'is required' }]);
      for (const params of [
        [['q', '']],
        [['q', '   ']],
        [['q', 'q'.repeat(101)]],
        [
          ['q', 'a'],
          ['q', 'b'],
        ],
      ] as [string, string][][]) {
        expectValidation(await api.get(query(SEARCH, params), { token }), [{ field: 'q', message: Q_RULE }]);
      }
    });

    it('validates the list parameters too, all failures at once', async () => {
      expectValidation(await search('a', [['per_page', '0']]), [{ field: 'per_page', message: PER_PAGE_RULE }]);
      expectValidation(await search('a', [['sort', 'id']]), [{ field: 'sort', message: SORT_RULE }]);
      expectValidation(
        await api.get(
          query(SEARCH, [
            ['page', 'x'],
            ['per_page', '101'],
            ['sort', 'password'],
            ['order', 'up'],
            ['q', ''],
          ]),
          { token },
        ),
        [
          { field: 'page', message: PAGE_RULE },
          { field: 'per_page', message: PER_PAGE_RULE },
          { field: 'sort', message: SORT_RULE },
          { field: 'order', message: ORDER_RULE },
          { field: 'q', message: Q_RULE },
        ],
      );
    });
  });

  describe('versions: ETag and If-Match', () => {
    const putIf = (id: string, ifMatch: string, json: unknown) =>
      api.put(item(id), { token, json, headers: { 'If-Match': ifMatch } });
    const deleteIf = (id: string, ifMatch: string) => api.delete(item(id), { token, headers: { 'If-Match': ifMatch } });
    const stale = (id: string) =>
      [
        'PRECONDITION_FAILED',
        'product is not at the expected version; read it again',
        { detail: `id: ${id}` },
      ] as const;

    it('every answer carrying one product has ETag "<version>": POST 201, GET and PUT 200; a change makes a new one', async () => {
      const created = await post({ ...PRODUCT_BODY, name: 'Tagged', price: 1 });
      expect(created.status).to.equal(201);
      expect(etagOf(created)).to.equal('"1"');
      const { id } = dataOf<ProductJson>(created, 201);
      expect(etagOf(await api.get(item(id), { token }))).to.equal('"1"');
      const changed = await put(id, { price: 2 });
      expect(changed.status).to.equal(200);
      expect(etagOf(changed)).to.equal('"2"');
      expect(etagOf(await api.get(item(id), { token }))).to.equal('"2"');
      // An empty change writes nothing: same version, same tag.
      expect(etagOf(await put(id, {}))).to.equal('"2"');
      // HEAD carries it too; lists carry many products and no ETag.
      expect(etagOf(await api.send('HEAD', item(id), { token }))).to.equal('"2"');
      expect((await api.get(PRODUCTS, { token })).headers.get('etag')).to.equal(null);
    });

    it('PUT with the current ETag → 200 and a new ETag; with a stale one → 412 PRECONDITION_FAILED, nothing written', async () => {
      const product = await create('Conditional', 10);
      const first = await putIf(product.id, '"1"', { price: 11 });
      expect(dataOf<ProductJson>(first)).to.include({ price: 11 });
      expect(etagOf(first)).to.equal('"2"');

      const late = await putIf(product.id, '"1"', { name: 'Too late', price: 99 });
      expectError(late, 412, ...stale(product.id));
      expect(late.headers.get('etag')).to.equal(null);
      const stored = await api.get(item(product.id), { token });
      expect(dataOf<ProductJson>(stored)).to.include({ name: 'Conditional', price: 11 });
      expect(etagOf(stored)).to.equal('"2"');

      // A version ahead of the stored one is just as stale; so is an empty change.
      expectError(await putIf(product.id, '"7"', { price: 12 }), 412, ...stale(product.id));
      expectError(await putIf(product.id, '"1"', {}), 412, ...stale(product.id));
      expect(etagOf(await putIf(product.id, '"2"', {}))).to.equal('"2"');
    });

    it('If-Match: * matches any version; a list matches if any member does; a weak tag never matches (strong comparison)', async () => {
      const product = await create('Matchy', 1);
      expect(etagOf(await putIf(product.id, '*', { price: 2 }))).to.equal('"2"');
      expect(etagOf(await putIf(product.id, '"9", "2"', { price: 3 }))).to.equal('"3"');
      expect(etagOf(await putIf(product.id, '"1","3" , "5"', { price: 4 }))).to.equal('"4"');
      expectError(await putIf(product.id, 'W/"4"', { price: 5 }), 412, ...stale(product.id));
      expectError(await putIf(product.id, '"1", W/"4"', { price: 5 }), 412, ...stale(product.id));
      // Strong comparison is of the tag's characters: "04" is not "4".
      expectError(await putIf(product.id, '"04"', { price: 5 }), 412, ...stale(product.id));
      expect(dataOf<ProductJson>(await api.get(item(product.id), { token })).price).to.equal(4);
    });

    it('a malformed If-Match (not *, not quoted integers) → 400 BAD_REQUEST on PUT and DELETE, nothing changed', async () => {
      const product = await create('Malformed', 1);
      for (const header of [
        '1',
        '"abc"',
        '"1',
        'W/1',
        '"1" "2"',
        '*, "1"',
        '',
        ' , ',
        '"-1"',
        '"1.5"',
        "'1'",
        'W/"x"',
      ]) {
        for (const response of [await putIf(product.id, header, { price: 9 }), await deleteIf(product.id, header)]) {
          expect(response.status, `If-Match: ${header}`).to.equal(400);
          expectError(response, 400, 'BAD_REQUEST', 'invalid If-Match header', {
            detail: 'expected * or quoted versions, e.g. "3"',
          });
        }
      }
      const stored = await api.get(item(product.id), { token });
      expect(dataOf<ProductJson>(stored).price).to.equal(1);
      expect(etagOf(stored)).to.equal('"1"');
    });

    it('an unknown product is 404 whatever If-Match says; a bad body is 400 before the version is looked at', async () => {
      const id = randomUUID();
      for (const header of ['"1"', '*']) {
        expectError(await putIf(id, header, { price: 5 }), 404, 'NOT_FOUND', 'Product not found', {
          detail: `id: ${id}`,
        });
        expectError(await deleteIf(id, header), 404, 'NOT_FOUND', 'Product not found', { detail: `id: ${id}` });
      }
      const product = await create('Ordered', 1);
      expectValidation(await putIf(product.id, '"9"', { price: 0 }), [priceField()]);
    });

    it('DELETE with a stale ETag → 412 and the product stays; with the current one or * → 204', async () => {
      const product = await create('Deletable', 1);
      await put(product.id, { price: 2 });
      expectError(await deleteIf(product.id, '"1"'), 412, ...stale(product.id));
      expectError(await deleteIf(product.id, 'W/"2"'), 412, ...stale(product.id));
      expect(etagOf(await api.get(item(product.id), { token }))).to.equal('"2"');
      expect((await deleteIf(product.id, '"1", "2"')).status).to.equal(204);
      expectError(await api.get(item(product.id), { token }), 404, 'NOT_FOUND', 'Product not found', {
        detail: `id: ${product.id}`,
      });

      const other = await create('Deletable too', 1);
      expect((await deleteIf(other.id, '*')).status).to.equal(204);
      expectError(await deleteIf(other.id, '*'), 404, 'NOT_FOUND', 'Product not found', { detail: `id: ${other.id}` });
    });

    it('of 10 concurrent PUTs with the same If-Match exactly one is 200; the others are 412 and wrote nothing', async () => {
      const product = await create('Race', 1);
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, n) => putIf(product.id, '"1"', { name: `Racer ${n}`, price: n + 1 })),
      );
      const winners = responses.filter((r) => r.status === 200);
      expect(winners, responses.map((r) => r.status).join(' ')).to.have.length(1);
      for (const response of responses) if (response.status !== 200) expectError(response, 412, ...stale(product.id));
      const stored = await api.get(item(product.id), { token });
      expect(dataOf<ProductJson>(stored)).to.deep.equal(dataOf<ProductJson>(winners[0]!));
      expect(etagOf(stored)).to.equal('"2"');
    });
  });

  describe('concurrent updates without If-Match', () => {
    it('concurrent changes of different fields are both kept (no lost write), every answer 200', async () => {
      const product = await create('Split 0', 1);
      for (let round = 1; round <= 15; round += 1) {
        const [byName, byPrice] = await Promise.all([
          put(product.id, { name: `Split ${round}` }),
          put(product.id, { price: round + 0.5 }),
        ]);
        expect([byName.status, byPrice.status], `${byName.text} ${byPrice.text}`).to.deep.equal([200, 200]);
        const stored = await fetchProduct(product.id);
        expect(stored.name, `round ${round}`).to.equal(`Split ${round}`);
        expect(stored.price, `round ${round}`).to.equal(round + 0.5);
      }
    });
  });
});

/** The `ETag` of an answer, which must have one. */
function etagOf(response: ApiResponse): string {
  const etag = response.headers.get('etag');
  expect(etag, `no ETag on ${response.status} ${response.text}`).to.be.a('string');
  return etag!;
}

/**
 * 50 concurrent partial PUTs of one product, half renaming it and half repricing it, none with
 * If-Match: every one answers 200 (none 409), each with its own version, and the stored product
 * holds the last acknowledged write of each field (docs/lists.md). On an SQLite file and, when
 * SVC_TEST_POSTGRES_URL is set, on PostgreSQL — the databases where the writers really overlap.
 */
describe('products: 50 concurrent partial updates (end to end)', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-concurrent-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [engine, url] of [
    ['an SQLite file', (): string | undefined => `sqlite:${join(dir, 'concurrent.sqlite')}`],
    ['PostgreSQL', (): string | undefined => externalService('SVC_TEST_POSTGRES_URL')],
  ] as const) {
    describe(`on ${engine}`, () => {
      let service: RunningService | undefined;
      let api: Api;
      let token: string;

      before(async function () {
        const databaseUrl = url();
        if (!databaseUrl) {
          console.log('      (skipped: needs SVC_TEST_POSTGRES_URL)');
          this.skip();
        }
        // PostgreSQL's test database is shared: start from empty tables, so the service seeds the
        // shipped access rules instead of finding what another suite left.
        await emptyTables(databaseUrl!);
        const env = { SVC_DATABASE_URL: databaseUrl!, SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' };
        service = await startService(testConfig(env), { logger: silentLogger() });
        api = new Api(service.url);
        token = (await accountWithRole(service, api, 'moderator')).access_token;
      });
      after(async () => service?.stop());

      it('all 50 answer 200 with versions 2…51; each field keeps its last acknowledged write', async () => {
        const created = await api.post(PRODUCTS, { token, json: { ...PRODUCT_BODY, name: 'Start', price: 1 } });
        const { id } = dataOf<ProductJson>(created, 201);
        const writes = Array.from({ length: 50 }, (_, n) =>
          n % 2 === 0 ? { name: `Name ${n}` } : { price: n + 0.25 },
        );

        const responses = await Promise.all(writes.map((json) => api.put(item(id), { token, json })));

        expect(
          responses.map((r) => r.status).filter((s) => s !== 200),
          'answers other than 200',
        ).to.deep.equal([]);
        const versions = responses.map((r) => Number(JSON.parse(etagOf(r))));
        expect([...versions].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 50 }, (_, n) => n + 2));
        const stored = await api.get(item(id), { token });
        expect(etagOf(stored)).to.equal('"51"');
        const lastOf = (field: 'name' | 'price') => {
          const indexes = writes.flatMap((w, n) => (field in w ? [n] : []));
          const last = indexes.reduce((a, b) => (versions[a]! > versions[b]! ? a : b));
          return (writes[last] as Record<string, unknown>)[field];
        };
        expect(dataOf<ProductJson>(stored)).to.include({ name: lastOf('name'), price: lastOf('price') });
        // Each answer shows its own write on top of every earlier one.
        for (const [n, response] of responses.entries()) expect(dataOf<ProductJson>(response)).to.include(writes[n]!);
      });
    });
  }
});
