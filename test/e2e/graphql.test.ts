import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  buildClientSchema,
  getIntrospectionQuery,
  Kind,
  printSchema,
  type GraphQLScalarType,
  type IntrospectionQuery,
  type ValueNode,
} from 'graphql';
import jwt from 'jsonwebtoken';
import { toGraphQLError } from '../../src/adapters/inbound/graphql/errors.js';
import { createSchema } from '../../src/adapters/inbound/graphql/schema.js';
import { Product } from '../../src/domain/product/Product.js';
import { ValidationError } from '../../src/domain/shared/DomainError.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { resourceTokens } from '../../src/main/modules/resource.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { contractFor } from '../support/contract.js';
import {
  accountWithRole,
  Api,
  dataOf,
  expectError,
  rawRequest,
  register,
  type Account,
  type ErrorJson,
  type FieldJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import {
  CREATE_PRODUCT,
  DELETE_PRODUCT,
  GET_PRODUCT,
  gqlCreateProduct,
  gqlData,
  gqlError,
  gqlRefused,
  graphql,
  LIST_PRODUCTS,
  UPDATE_PRODUCT,
  type GqlCommonResponse,
  type GqlProduct,
  type GqlProductList,
  type GqlProductResponse,
  type GraphQLFieldJson,
  type GraphQLResponse,
} from '../support/graphql.js';
import { silentLogger } from '../support/logger.js';
import { camelOf, sortFieldsOf } from '../support/resource/descriptor.js';
import { productResource } from '../support/resources/product.js';
import { graphqlLiteral, PRODUCT_BODY, PRODUCT_INPUT } from '../support/resources/productBodies.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** The REST shape of a product (docs/lists.md), to compare the two APIs. */
interface RestProduct {
  id: string;
  name: string;
  price: number;
  created_at: string;
  updated_at: string;
}

/**
 * `{ __schema { types { fields { type { ofType { … { name } } } } } } }`, exactly `depth` fields
 * deep (a root field is 1). With `viaFragment` the part under `types` sits in a fragment.
 */
function deepQuery(depth: number, viaFragment = false): string {
  if (depth < 5) throw new Error('deepQuery needs a depth of at least 5');
  let inner = 'name';
  for (let i = 0; i < depth - 5; i += 1) inner = `ofType { ${inner} }`;
  const below = `fields { type { ${inner} } }`;
  return viaFragment
    ? `query { __schema { types { ...Deep } } } fragment Deep on __Type { ${below} }`
    : `{ __schema { types { ${below} } } }`;
}

const aliases = (count: number): string =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: queryHealth { status }`).join(' ')} }`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const asRestFields = (errors: GraphQLFieldJson[] | null | undefined): FieldJson[] =>
  (errors ?? []).map((e) => ({ field: e.fieldName, message: e.message }));

/** The `error.fields` of a REST 400 VALIDATION_ERROR answer. */
function restFields(response: { status: number; body: unknown; text: string }): FieldJson[] {
  expect(response.status, response.text).to.equal(400);
  const { error } = response.body as ErrorJson;
  expect(error.code).to.equal('VALIDATION_ERROR');
  return error.fields ?? [];
}

describe('GraphQL API (end to end, api.mode both)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let url: string;
  let user: Account;
  let admin: Account;

  const gql = <D = Record<string, unknown>>(query: string, request: Parameters<typeof graphql>[2] = {}) =>
    graphql<D>(url, query, request);
  const restTotal = async (): Promise<number> => {
    const body = (await api.get('/api/v1/products?per_page=1', { token: admin.access_token })).body as {
      meta: { total: number };
    };
    return body.meta.total;
  };

  before(async () => {
    service = await startService(
      testConfig({ SVC_API_MODE: 'both', SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }),
      {
        logger: silentLogger(),
      },
    );
    api = new Api(service.url);
    url = service.url;
    user = await register(api);
    admin = await accountWithRole(service, api, 'admin');
  });
  after(async () => service.stop());

  describe('public fields, with no token', () => {
    it('queryHealth answers {status: 200, message: "ok"} and no errors', async () => {
      const data = gqlData(
        await gql<{ queryHealth: GqlCommonResponse }>(
          '{ queryHealth { status message errors { fieldName message } } }',
        ),
      );
      expect(data).to.deep.equal({ queryHealth: { status: 200, message: 'ok', errors: null } });
    });

    it('mutationHealth answers {status: 200, message: "ok"} and no errors', async () => {
      const data = gqlData(
        await gql<{ mutationHealth: GqlCommonResponse }>(
          'mutation { mutationHealth { status message errors { fieldName message } } }',
        ),
      );
      expect(data).to.deep.equal({ mutationHealth: { status: 200, message: 'ok', errors: null } });
    });

    it('__typename works on Query and on Mutation', async () => {
      expect(gqlData(await gql('{ __typename }'))).to.deep.equal({ __typename: 'Query' });
      expect(gqlData(await gql('mutation { __typename }'))).to.deep.equal({ __typename: 'Mutation' });
      expect(gqlData(await gql('{ __typename queryHealth { __typename status } }'))).to.deep.equal({
        __typename: 'Query',
        queryHealth: { __typename: 'TCommonResponseDto', status: 200 },
      });
    });

    it('introspection works (enabled by default outside production), and the schema is the contract’s', async () => {
      const data = gqlData(await gql<IntrospectionQuery>(getIntrospectionQuery()));
      const sdl = printSchema(buildClientSchema(data));
      for (const line of [
        'scalar DateTime',
        'queryHealth: TCommonResponseDto!',
        'product(id: ID!): Product',
        'products(pagination: TPaginationInputDto, sort: TSortingInputDto, search: String): ProductList!',
        'mutationHealth: TCommonResponseDto!',
        'createProduct(input: CreateProductInput!): ProductResponse!',
        'updateProduct(id: ID!, input: UpdateProductInput!): ProductResponse!',
        'deleteProduct(id: ID!): TCommonResponseDto!',
        'createdAt: DateTime!',
      ]) {
        expect(sdl).to.include(line);
      }
      const types = gqlData(await gql<{ __schema: { types: { name: string }[] } }>('{ __schema { types { name } } }'));
      expect(types.__schema.types.map((t) => t.name)).to.include.members([
        'Product',
        'ProductList',
        'DateTime',
        'SortOrientation',
      ]);
    });

    it('health fields, __typename and introspection ignore a bad token instead of refusing it', async () => {
      for (const headers of [
        { Authorization: 'Bearer garbage' },
        { Authorization: 'Basic dXNlcjpwYXNz' },
        { Authorization: 'Bearer' },
      ]) {
        const data = gqlData(
          await gql('{ __typename queryHealth { status message } __schema { queryType { name } } }', { headers }),
        );
        expect(data).to.deep.equal({
          __typename: 'Query',
          queryHealth: { status: 200, message: 'ok' },
          __schema: { queryType: { name: 'Query' } },
        });
        expect(gqlData(await gql('mutation { mutationHealth { status message } }', { headers }))).to.deep.equal({
          mutationHealth: { status: 200, message: 'ok' },
        });
      }
    });
  });

  describe('tokens on protected fields: HTTP 200 and UNAUTHORIZED, never an HTTP 401', () => {
    let product: GqlProduct;
    const badTokens = (): { name: string; headers: Record<string, string>; message?: string }[] => {
      const config = service.container.get(TOKENS.Config);
      const now = Math.floor(Date.now() / 1000);
      const claims = { sub: admin.user.id, role: 'admin', typ: 'access', jti: randomUUID(), iss: config.jwt.issuer };
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      return [
        { name: 'no token', headers: {}, message: 'missing bearer token' },
        { name: 'garbage', headers: { Authorization: 'Bearer garbage' } },
        { name: 'a non-bearer scheme', headers: { Authorization: 'Basic dXNlcjpwYXNz' } },
        { name: 'an empty bearer', headers: { Authorization: 'Bearer ' } },
        {
          name: 'an expired token',
          headers: {
            Authorization: `Bearer ${jwt.sign({ ...claims, iat: now - 7200, exp: now - 60 }, config.jwt.secret, { algorithm: 'HS256' })}`,
          },
        },
        {
          name: 'a wrongly signed token',
          headers: {
            Authorization: `Bearer ${jwt.sign({ ...claims, iat: now, exp: now + 600 }, 'another-secret-of-at-least-32-bytes!!', { algorithm: 'HS256' })}`,
          },
        },
        {
          name: 'an alg none token',
          headers: {
            Authorization: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, iat: now, exp: now + 600 })}.`,
          },
        },
        { name: 'a refresh token', headers: { Authorization: `Bearer ${admin.refresh_token}` } },
      ];
    };

    before(async () => {
      product = await gqlCreateProduct(url, admin.access_token, { name: `token-probe-${randomUUID()}`, price: 5 });
    });

    it('product, products, createProduct, updateProduct and deleteProduct each answer UNAUTHORIZED with HTTP 200', async () => {
      const name = `must-not-exist-${randomUUID()}`;
      const operations = [
        { field: 'product', query: GET_PRODUCT, variables: { id: product.id }, nullData: false },
        { field: 'products', query: LIST_PRODUCTS, variables: {}, nullData: true },
        { field: 'products', query: LIST_PRODUCTS, variables: { search: 'probe' }, nullData: true },
        {
          field: 'createProduct',
          query: CREATE_PRODUCT,
          variables: { input: { ...PRODUCT_INPUT, name, price: 1 } },
          nullData: true,
        },
        {
          field: 'updateProduct',
          query: UPDATE_PRODUCT,
          variables: { id: product.id, input: { name: 'hijacked', price: 999 } },
          nullData: true,
        },
        { field: 'deleteProduct', query: DELETE_PRODUCT, variables: { id: product.id }, nullData: true },
      ];
      for (const token of badTokens()) {
        for (const op of operations) {
          const response = await gql(op.query, { variables: op.variables, headers: token.headers });
          const error = gqlError(response, 'UNAUTHORIZED');
          expect(response.headers.get('www-authenticate'), `${token.name} / ${op.field}`).to.equal(null);
          expect(error.path, response.text).to.deep.equal([op.field]);
          expect(error.message, response.text).to.be.a('string').that.is.not.empty;
          if (token.message !== undefined) expect(error.message).to.equal(token.message);
          if (op.nullData) expect(response.body.data, `${token.name} / ${op.field}`).to.equal(null);
          else expect(response.body.data, `${token.name} / ${op.field}`).to.deep.equal({ [op.field]: null });
        }
      }
      // Nothing changed: the product is as it was and the new one does not exist.
      const after = gqlData(
        await gql<{ product: GqlProduct }>(GET_PRODUCT, { token: admin.access_token, variables: { id: product.id } }),
      );
      expect(after.product).to.deep.equal(product);
      const search = gqlData(
        await gql<{ products: GqlProductList }>(LIST_PRODUCTS, {
          token: admin.access_token,
          variables: { search: name },
        }),
      );
      expect(search.products.data).to.deep.equal([]);
    });

    it('a bad token on a protected field does not stop the public fields of the same document', async () => {
      const response = await gql(`{ queryHealth { status message } product(id: "${product.id}") { id } }`, {
        token: 'garbage',
      });
      gqlError(response, 'UNAUTHORIZED');
      expect(response.body.data).to.deep.equal({ queryHealth: { status: 200, message: 'ok' }, product: null });
    });

    it('the same request with a good token succeeds (so the refusals above are about the token)', async () => {
      const data = gqlData(
        await gql<{ product: GqlProduct }>(GET_PRODUCT, { token: admin.access_token, variables: { id: product.id } }),
      );
      expect(data.product.id).to.equal(product.id);
    });
  });

  describe('product(id)', () => {
    let product: GqlProduct;
    before(async () => {
      product = await gqlCreateProduct(url, admin.access_token, { name: `Reading lamp ${randomUUID()}`, price: 39.9 });
    });

    it('takes the id in any letter case, like REST', async () => {
      const data = gqlData(
        await gql<{ product: GqlProduct }>(GET_PRODUCT, {
          token: admin.access_token,
          variables: { id: product.id.toUpperCase() },
        }),
      );
      expect(data.product.id).to.equal(product.id);
    });

    it('an id literal works as well as a variable', async () => {
      const data = gqlData(
        await gql<{ product: { name: string } }>(`{ product(id: "${product.id}") { name } }`, {
          token: admin.access_token,
        }),
      );
      expect(data.product.name).to.equal(product.name);
    });

    it('unknown and non-UUID ids: NOT_FOUND "Product not found" with detail "id: <id>" and product null', async () => {
      for (const id of [
        randomUUID(),
        'abc',
        '42',
        "' or 1=1 --",
        '00000000-0000-0000-0000-00000000000g',
        '',
        '\ud800',
        'a\udc00',
      ]) {
        const response = await gql(GET_PRODUCT, { token: admin.access_token, variables: { id } });
        const error = gqlError(response, 'NOT_FOUND');
        expect(error.message).to.equal('Product not found');
        expect(error.extensions?.detail).to.equal(`id: ${id}`);
        expect(error.path).to.deep.equal(['product']);
        expect(response.body.data).to.deep.equal({ product: null });
      }
    });
  });

  describe('products', () => {
    const tag = `gqlsort${randomUUID().slice(0, 8)}`;
    const words = ['charlie', 'alpha', 'echo', 'bravo', 'delta'];
    const prices = [30, 40, 10.5, 50, 20];
    let mine: GqlProduct[];

    const list = async (variables: Record<string, unknown>): Promise<GqlProductList> =>
      gqlData(await gql<{ products: GqlProductList }>(LIST_PRODUCTS, { token: admin.access_token, variables }))
        .products;

    before(async () => {
      // Created, then updated in another order, a few milliseconds apart: every sort key differs.
      const created: GqlProduct[] = [];
      for (const [i, word] of words.entries()) {
        created.push(await gqlCreateProduct(url, admin.access_token, { name: `${tag} ${word}`, price: prices[i]! }));
        await sleep(5);
      }
      const byName = new Map(created.map((p) => [p.name, p]));
      mine = [];
      for (const word of ['echo', 'alpha', 'delta', 'charlie', 'bravo']) {
        const product = byName.get(`${tag} ${word}`)!;
        const { updateProduct } = gqlData(
          await gql<{ updateProduct: GqlProductResponse }>(UPDATE_PRODUCT, {
            token: admin.access_token,
            variables: { id: product.id, input: { price: product.price } },
          }),
        );
        mine.push(updateProduct.data!);
        await sleep(5);
      }
    });

    const expectedOrder = (field: keyof GqlProduct, orientation: 'ASC' | 'DESC'): string[] => {
      const key = (p: GqlProduct) => (field === 'createdAt' || field === 'updatedAt' ? Date.parse(p[field]) : p[field]);
      const sorted = [...mine].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      if (orientation === 'DESC') sorted.reverse();
      return sorted.map((p) => p.id);
    };

    it('sortOrientation defaults to DESC', async () => {
      const result = await list({ search: tag, sort: { sortByField: 'price' } });
      expect(result.data.map((p) => p.id)).to.deep.equal(expectedOrder('price', 'DESC'));
    });

    it('without sort, a search is ordered by createdAt DESC', async () => {
      const result = await list({ search: tag });
      expect(result.data.map((p) => p.id)).to.deep.equal(expectedOrder('createdAt', 'DESC'));
    });

    it('paginates: limit and page, totals, a page past the end is empty, and no row repeats or goes missing', async () => {
      const seen: string[] = [];
      for (const [page, size] of [
        [1, 2],
        [2, 2],
        [3, 1],
        [4, 0],
      ] as const) {
        const result = await list({
          search: tag,
          pagination: { limit: 2, page },
          sort: { sortByField: 'name', sortOrientation: 'ASC' },
        });
        expect(result.data, `page ${page}`).to.have.length(size);
        expect(result.pagination).to.deep.equal({
          totalRecords: 5,
          recordsPerPage: 2,
          totalPages: 3,
          currentPage: page,
        });
        seen.push(...result.data.map((p) => p.id));
      }
      expect(seen).to.deep.equal(expectedOrder('name', 'ASC'));
    });

    it('limit alone defaults page to 1; page alone defaults limit to 20', async () => {
      expect((await list({ search: tag, pagination: { limit: 3 } })).pagination).to.deep.equal({
        totalRecords: 5,
        recordsPerPage: 3,
        totalPages: 2,
        currentPage: 1,
      });
      expect((await list({ search: tag, pagination: { page: 1 } })).pagination).to.deep.equal({
        totalRecords: 5,
        recordsPerPage: 20,
        totalPages: 1,
        currentPage: 1,
      });
    });

    it('accepts the bounds: limit 1 and 100, a search of 100 characters', async () => {
      expect((await list({ search: tag, pagination: { limit: 1 } })).data).to.have.length(1);
      expect((await list({ search: tag, pagination: { limit: 100 } })).data).to.have.length(5);
      expect((await list({ search: 'q'.repeat(100) })).data).to.deep.equal([]);
    });

    it('search is case-insensitive and matches inside the name', async () => {
      const upper = await list({ search: `${tag.toUpperCase()} ALPHA` });
      expect(upper.data.map((p) => p.name)).to.deep.equal([`${tag} alpha`]);
      const middle = await list({ search: `${tag.slice(3).toUpperCase()} BrA` });
      expect(middle.data.map((p) => p.name)).to.deep.equal([`${tag} bravo`]);
    });

    it('a search that matches nothing: empty data, totalRecords 0, totalPages 0', async () => {
      const result = await list({ search: `nothing-${randomUUID()}` });
      expect(result).to.deep.equal({
        data: [],
        pagination: { totalRecords: 0, recordsPerPage: 20, totalPages: 0, currentPage: 1 },
      });
    });

    it('no arguments: limit 20, page 1, createdAt DESC — the same page REST gives by default', async () => {
      // Enough products that the first page is full.
      for (let i = 0; i < 21; i += 1)
        await gqlCreateProduct(url, admin.access_token, { name: `defaults filler ${i} ${randomUUID()}`, price: i + 1 });
      const result = gqlData(
        await gql<{ products: GqlProductList }>(
          `{ products { data { id createdAt } pagination { totalRecords recordsPerPage totalPages currentPage } } }`,
          { token: admin.access_token },
        ),
      ).products;
      const rest = await api.get('/api/v1/products', { token: admin.access_token });
      const restBody = rest.body as {
        data: RestProduct[];
        meta: { total: number; per_page: number; page: number; total_pages: number };
      };
      expect(result.data).to.have.length(20);
      expect(result.pagination).to.deep.equal({
        totalRecords: restBody.meta.total,
        recordsPerPage: 20,
        totalPages: Math.ceil(restBody.meta.total / 20),
        currentPage: 1,
      });
      expect(restBody.meta.total).to.be.greaterThan(20);
      const times = result.data.map((p) => Date.parse(p.createdAt));
      for (let i = 1; i < times.length; i += 1) expect(times[i - 1]).to.be.at.least(times[i]!);
      expect(result.data.map((p) => p.id)).to.deep.equal(restBody.data.map((p) => p.id));
    });
  });

  describe('products: bad arguments → VALIDATION_ERROR with extensions.fields', () => {
    const products = (args: string) => gql(`{ products${args} { data { id } } }`, { token: admin.access_token });

    const expectInvalid = (response: GraphQLResponse<unknown>, fields: GraphQLFieldJson[]) => {
      const error = gqlError(response, 'VALIDATION_ERROR');
      expect(error.message).to.equal('validation failed');
      expect(error.extensions?.fields, response.text).to.deep.equal(fields);
      expect(error.path).to.deep.equal(['products']);
      expect(response.body.data).to.equal(null);
    };

    it('limit 0, 101 and -1: pagination.limit, with the message REST gives per_page', async () => {
      const [message] = restFields(await api.get('/api/v1/products?per_page=0', { token: admin.access_token })).map(
        (f) => f.message,
      );
      expect(message).to.be.a('string');
      for (const limit of [0, 101, -1]) {
        expectInvalid(await products(`(pagination: { limit: ${limit} })`), [
          { fieldName: 'pagination.limit', message: message! },
        ]);
      }
    });

    it('page 0 and -1: pagination.page, with the message REST gives page', async () => {
      const [message] = restFields(await api.get('/api/v1/products?page=0', { token: admin.access_token })).map(
        (f) => f.message,
      );
      for (const page of [0, -1]) {
        expectInvalid(await products(`(pagination: { page: ${page} })`), [
          { fieldName: 'pagination.page', message: message! },
        ]);
      }
    });

    it('sortByField "id" (and the REST spelling "created_at"): sort.sortByField, naming the GraphQL fields', async () => {
      for (const field of ['id', 'created_at', '', 'NAME']) {
        expectInvalid(await products(`(sort: { sortByField: "${field}" })`), [
          {
            fieldName: 'sort.sortByField',
            message: `must be one of ${sortFieldsOf(productResource).map(camelOf).join(', ')}`,
          },
        ]);
      }
    });

    it('search "", blank or 101 characters: search, with the message REST gives q', async () => {
      const [message] = restFields(await api.get('/api/v1/products/search?q=', { token: admin.access_token })).map(
        (f) => f.message,
      );
      const [longMessage] = restFields(
        await api.get(`/api/v1/products/search?q=${'q'.repeat(101)}`, { token: admin.access_token }),
      ).map((f) => f.message);
      expect(longMessage).to.equal(message);
      for (const search of ['', '   ', 'q'.repeat(101)]) {
        expectInvalid(
          await gql('query ($s: String) { products(search: $s) { data { id } } }', {
            token: admin.access_token,
            variables: { s: search },
          }),
          [{ fieldName: 'search', message: message! }],
        );
      }
    });

    it('search with a lone surrogate (a JSON variable): search, "must not contain unpaired surrogates"', async () => {
      for (const search of ['\ud800', 'a\udfffb']) {
        expectInvalid(
          await gql('query ($s: String) { products(search: $s) { data { id } } }', {
            token: admin.access_token,
            variables: { s: search },
          }),
          [{ fieldName: 'search', message: 'must not contain unpaired surrogates' }],
        );
      }
      // In a literal, GraphQL's own lexer refuses the escape: a syntax error, never a 500.
      const literal = await gql('{ products(search: "\\ud800") { data { id } } }', { token: admin.access_token });
      expect(literal.status, literal.text).to.equal(200); // graphql-http's status for `Accept: application/json`
      expect(literal.body.errors?.[0]?.message).to.match(/Invalid Unicode escape sequence/);
      expect(literal.body.data).to.equal(undefined);
    });

    it('every bad argument at once, all listed', async () => {
      const response = await products('(pagination: { limit: 0, page: 0 }, sort: { sortByField: "id" }, search: "")');
      const error = gqlError(response, 'VALIDATION_ERROR');
      expect((error.extensions?.fields ?? []).map((f) => f.fieldName)).to.deep.equal([
        'pagination.limit',
        'pagination.page',
        'sort.sortByField',
        'search',
      ]);
    });
  });

  describe('createProduct', () => {
    it('answers status 201 with the product (name trimmed), which REST then shows', async () => {
      const name = `Desk ${randomUUID()}`;
      const { createProduct } = gqlData(
        await gql<{ createProduct: GqlProductResponse }>(CREATE_PRODUCT, {
          token: admin.access_token,
          variables: { input: { ...PRODUCT_INPUT, name: `  ${name}  `, price: 120.5 } },
        }),
      );
      expect(createProduct.status).to.equal(201);
      expect(createProduct.errors).to.equal(null);
      const product = createProduct.data!;
      expect(product.id).to.match(UUID);
      expect(product).to.include({ name, price: 120.5 });
      expect(product.createdAt).to.match(RFC3339);
      expect(product.createdAt).to.equal(product.updatedAt);
      expect(Math.abs(Date.parse(product.createdAt) - Date.now())).to.be.lessThan(60_000);
      const rest = dataOf<RestProduct>(await api.get(`/api/v1/products/${product.id}`, { token: admin.access_token }));
      expect(rest).to.include({ id: product.id, name, price: 120.5 });
    });

    it('an integer price is a Float like any other', async () => {
      const product = await gqlCreateProduct(url, admin.access_token, { name: `Int price ${randomUUID()}`, price: 7 });
      expect(product.price).to.equal(7);
    });

    const badInputs: { name: string; price: number }[] = [
      { name: '', price: 0 },
      { name: '   ', price: -5 },
      { name: 'x'.repeat(201), price: 1 },
      { name: 'fine name', price: -0.01 },
      { name: 'fine name', price: 0 },
      { name: '\t\n', price: 10 },
      { name: 'p\ud800q', price: 10 },
      { name: 'Pe\u200bn', price: 10 },
      { name: '\u202eneP', price: 10 },
    ];

    it('field failures: status 422, "validation failed", errors [{fieldName, message}] exactly as REST lists them, data null; nothing created', async () => {
      const before = await restTotal();
      for (const input of badInputs) {
        const response = await gql<{ createProduct: GqlProductResponse }>(CREATE_PRODUCT, {
          token: admin.access_token,
          variables: { input: { ...PRODUCT_INPUT, ...input } },
        });
        const { createProduct } = gqlData(response);
        expect(createProduct.status, response.text).to.equal(422);
        expect(createProduct.message).to.equal('validation failed');
        expect(createProduct.data).to.equal(null);
        expect(createProduct.errors, response.text).to.be.an('array').that.is.not.empty;
        const rest = restFields(
          await api.post('/api/v1/products', { token: admin.access_token, json: { ...PRODUCT_BODY, ...input } }),
        );
        expect(asRestFields(createProduct.errors), JSON.stringify(input)).to.deep.equal(rest);
      }
      expect(await restTotal()).to.equal(before);
    });

    it('a name with a lone surrogate or an invisible character: 422 naming name, with the message REST gives', async () => {
      for (const [name, message] of [
        ['p\ud800q', 'must not contain unpaired surrogates'],
        ['Pe\u200dn', 'must not contain invisible characters'],
      ]) {
        const response = await gql<{ createProduct: GqlProductResponse }>(CREATE_PRODUCT, {
          token: admin.access_token,
          variables: { input: { ...PRODUCT_INPUT, name, price: 1 } },
        });
        expect(gqlData(response).createProduct, response.text).to.deep.include({
          status: 422,
          errors: [{ fieldName: 'name', message }],
          data: null,
        });
      }
    });

    it('lists every failing field at once (name and price)', async () => {
      const { createProduct } = gqlData(
        await gql<{ createProduct: GqlProductResponse }>(CREATE_PRODUCT, {
          token: admin.access_token,
          variables: { input: { ...PRODUCT_INPUT, name: '', price: 0 } },
        }),
      );
      expect(createProduct.errors!.map((e) => e.fieldName)).to.deep.equal(['name', 'price']);
      expect(createProduct.errors!.every((e) => typeof e.message === 'string' && e.message !== '')).to.equal(true);
    });

    it('a literal input gets the same 422 as a variable', async () => {
      const { createProduct } = gqlData(
        await gql<{ createProduct: GqlProductResponse }>(
          `mutation { createProduct(input: ${graphqlLiteral({ ...PRODUCT_INPUT, name: '', price: 0 })}) { status message errors { fieldName message } data { id } } }`,
          {
            token: admin.access_token,
          },
        ),
      );
      const rest = restFields(
        await api.post('/api/v1/products', {
          token: admin.access_token,
          json: { ...PRODUCT_BODY, name: '', price: 0 },
        }),
      );
      expect(createProduct).to.deep.include({ status: 422, message: 'validation failed', data: null });
      expect(asRestFields(createProduct.errors)).to.deep.equal(rest);
    });

    it('a price given as a string is refused by the schema itself: no data, nothing created', async () => {
      const before = await restTotal();
      const response = await gql(CREATE_PRODUCT, {
        token: admin.access_token,
        variables: { input: { ...PRODUCT_INPUT, name: 'string price', price: '10' } },
      });
      expect(response.body.errors, response.text).to.be.an('array').that.is.not.empty;
      expect(response.body.data ?? null).to.equal(null);
      expect(await restTotal()).to.equal(before);
    });
  });

  describe('updateProduct', () => {
    let product: GqlProduct;
    const update = async (id: string, input: Record<string, unknown>) =>
      gql<{ updateProduct: GqlProductResponse }>(UPDATE_PRODUCT, {
        token: admin.access_token,
        variables: { id, input },
      });
    const current = async (id: string) =>
      gqlData(await gql<{ product: GqlProduct }>(GET_PRODUCT, { token: admin.access_token, variables: { id } }))
        .product;

    beforeEach(async () => {
      product = await gqlCreateProduct(url, admin.access_token, { name: `Chair ${randomUUID()}`, price: 45 });
      await sleep(5);
    });

    it('name only: status 200, the price unchanged, updatedAt moves and createdAt stays', async () => {
      const { updateProduct } = gqlData(await update(product.id, { name: '  Armchair  ' }));
      expect(updateProduct.status).to.equal(200);
      expect(updateProduct.errors).to.equal(null);
      const data = updateProduct.data!;
      expect(data).to.include({ id: product.id, name: 'Armchair', price: 45, createdAt: product.createdAt });
      expect(Date.parse(data.updatedAt)).to.be.greaterThan(Date.parse(product.updatedAt));
      expect(await current(product.id)).to.deep.equal(data);
    });

    it('price only: status 200, the name unchanged', async () => {
      const { updateProduct } = gqlData(await update(product.id, { price: 49.99 }));
      expect(updateProduct.status).to.equal(200);
      expect(updateProduct.data).to.include({ id: product.id, name: product.name, price: 49.99 });
      expect(await current(product.id)).to.deep.equal(updateProduct.data);
    });

    it('both fields at once', async () => {
      const { updateProduct } = gqlData(await update(product.id, { name: 'Stool', price: 12 }));
      expect(updateProduct.status).to.equal(200);
      expect(updateProduct.data).to.include({ name: 'Stool', price: 12 });
    });

    it('an empty input changes nothing it was not given: status 200, name and price as they were', async () => {
      const { updateProduct } = gqlData(await update(product.id, {}));
      expect(updateProduct.status).to.equal(200);
      expect(updateProduct.data).to.include({ id: product.id, name: product.name, price: product.price });
    });

    it('field failures: status 422 with the errors REST lists for the same body, data null, and the product unchanged', async () => {
      for (const input of [
        { name: '' },
        { price: 0 },
        { name: '   ', price: -1 },
        { name: 'y'.repeat(201) },
        { price: -3 },
        { name: '\udc00y' },
        { name: 'y\u2066' },
      ]) {
        const response = await update(product.id, input);
        const { updateProduct } = gqlData(response);
        expect(updateProduct, response.text).to.deep.include({ status: 422, message: 'validation failed', data: null });
        const rest = restFields(
          await api.put(`/api/v1/products/${product.id}`, { token: admin.access_token, json: input }),
        );
        expect(asRestFields(updateProduct.errors), JSON.stringify(input)).to.deep.equal(rest);
      }
      expect(await current(product.id)).to.deep.equal(product);
    });

    it('unknown and non-UUID ids: NOT_FOUND with detail "id: <id>"', async () => {
      for (const id of [randomUUID(), 'not-a-uuid', '7']) {
        const response = await update(id, { name: 'Ghost' });
        const error = gqlError(response, 'NOT_FOUND');
        expect(error.message).to.equal('Product not found');
        expect(error.extensions?.detail).to.equal(`id: ${id}`);
        expect(error.path).to.deep.equal(['updateProduct']);
        expect(response.body.data).to.equal(null);
      }
    });

    it('20 concurrent partial updates (no If-Match in GraphQL) all answer status 200, and each field keeps its last write', async () => {
      const inputs = Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? { name: `Chair ${n}` } : { price: n }));
      const answers = await Promise.all(
        inputs.map(async (input) => gqlData(await update(product.id, input)).updateProduct),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(inputs.map(() => 200));
      const stored = await current(product.id);
      expect(inputs.map((i) => i.name)).to.include(stored.name);
      expect(inputs.map((i) => i.price)).to.include(stored.price);
    });
  });

  describe('deleteProduct', () => {
    it('unknown and non-UUID ids: NOT_FOUND with detail "id: <id>", data null', async () => {
      for (const id of [randomUUID(), 'nope', '1 OR 1=1']) {
        const response = await gql(DELETE_PRODUCT, { token: admin.access_token, variables: { id } });
        const error = gqlError(response, 'NOT_FOUND');
        expect(error.message).to.equal('Product not found');
        expect(error.extensions?.detail).to.equal(`id: ${id}`);
        expect(error.path).to.deep.equal(['deleteProduct']);
        expect(response.body.data).to.equal(null);
      }
    });
  });

  describe('DateTime', () => {
    it('createdAt and updatedAt are RFC 3339 strings with a zone, the same instants REST shows', async () => {
      const product = await gqlCreateProduct(url, admin.access_token, { name: `Clock ${randomUUID()}`, price: 9 });
      expect(product.createdAt).to.match(RFC3339);
      expect(product.updatedAt).to.match(RFC3339);
      const rest = dataOf<RestProduct>(await api.get(`/api/v1/products/${product.id}`, { token: admin.access_token }));
      expect(Date.parse(product.createdAt)).to.equal(Date.parse(rest.created_at));
    });

    describe('the scalar itself', () => {
      const scalar = createSchema([]).getType('DateTime') as GraphQLScalarType;
      const literal = (value: string): ValueNode => ({ kind: Kind.STRING, value });
      const invalid = [
        '2026-01-31T12:00:00', // no zone
        '2026-01-31',
        '12:00:00Z',
        '2026-01-31 12:00:00Z',
        'not a date',
        '',
        '2026-13-01T12:00:00Z',
        '2026-00-10T12:00:00Z',
        '2026-02-30T12:00:00Z',
        '2025-02-29T12:00:00Z', // not a leap year
        '2100-02-29T12:00:00Z',
        '2026-04-31T12:00:00Z',
        '2026-01-00T12:00:00Z',
        '2026-01-01T24:00:00Z',
        '2026-01-31T12:00:60Z',
        '2026-01-31T12:60:00Z',
        '2026-01-31T12:00:00+25:00',
        '2026-01-31T12:00:00+05:60',
        '2026-01-31T12:00:00+0500',
        '1769860800000',
      ];

      it('serializes a Date as an RFC 3339 UTC string', () => {
        expect(scalar.serialize(new Date('2026-01-31T12:00:00.123Z'))).to.equal('2026-01-31T12:00:00.123Z');
      });

      it('serializes an RFC 3339 string with an offset as the same instant in UTC', () => {
        expect(scalar.serialize('2026-01-31T12:00:00+02:00')).to.equal('2026-01-31T10:00:00.000Z');
      });

      it('refuses to serialize an invalid Date, a number, null or a string that is not RFC 3339 with a zone', () => {
        for (const value of [new Date(Number.NaN), 1769860800000, null, {}, ...invalid]) {
          expect(() => scalar.serialize(value), String(value)).to.throw();
        }
      });

      it('parses RFC 3339 input with Z or an offset (as a variable or a literal) into the right instant', () => {
        for (const [text, iso] of [
          ['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.000Z'],
          ['2026-01-31T12:00:00.5-03:30', '2026-01-31T15:30:00.500Z'],
          ['2024-02-29T00:00:00+00:00', '2024-02-29T00:00:00.000Z'],
          ['2000-02-29T23:59:59-00:00', '2000-02-29T23:59:59.000Z'],
          ['2026-01-31t12:00:00z', '2026-01-31T12:00:00.000Z'],
        ] as const) {
          expect((scalar.parseValue(text) as Date).toISOString()).to.equal(iso);
          expect((scalar.parseLiteral(literal(text), undefined) as Date).toISOString()).to.equal(iso);
        }
      });

      it('refuses invalid input, as a variable or a literal', () => {
        for (const value of invalid) {
          expect(() => scalar.parseValue(value), value).to.throw(/RFC 3339/);
          expect(() => scalar.parseLiteral(literal(value), undefined), value).to.throw(/RFC 3339/);
        }
        for (const value of [1769860800000, null, true, { at: 'now' }])
          expect(() => scalar.parseValue(value)).to.throw();
        expect(() => scalar.parseLiteral({ kind: Kind.INT, value: '1769860800000' }, undefined)).to.throw();
        expect(() => scalar.parseLiteral({ kind: Kind.BOOLEAN, value: true }, undefined)).to.throw();
      });
    });
  });

  describe('errors', () => {
    it('toGraphQLError: a plain Error becomes "internal server error" / INTERNAL_ERROR, its message kept inside', () => {
      for (const thrown of [
        new Error('SQLITE_ERROR: no such table products at /srv/app/db.ts:12'),
        new TypeError('x is undefined'),
        'a string',
        null,
      ]) {
        const { error, internal } = toGraphQLError(thrown);
        expect(internal).to.equal(true);
        expect(error.message).to.equal('internal server error');
        expect(error.extensions).to.deep.equal({ code: 'INTERNAL_ERROR' });
        expect(JSON.stringify(error.toJSON())).not.to.match(/SQLITE|\/srv|undefined|a string/);
      }
    });

    it('toGraphQLError: domain errors carry their REST code, detail and fields', () => {
      const notFound = toGraphQLError(Product.errors.notFound('abc'));
      expect(notFound.internal).to.equal(false);
      expect(notFound.error.message).to.equal('Product not found');
      expect(notFound.error.extensions).to.deep.equal({ code: 'NOT_FOUND', detail: 'id: abc' });
      const stale = toGraphQLError(Product.errors.versionMismatch('abc'));
      expect(stale.internal).to.equal(false);
      expect(stale.error.extensions).to.deep.equal({ code: 'PRECONDITION_FAILED', detail: 'id: abc' });
      const invalid = toGraphQLError(
        new ValidationError([{ field: 'price', message: 'must be a number greater than 0' }]),
      );
      expect(invalid.error.extensions).to.deep.equal({
        code: 'VALIDATION_ERROR',
        fields: [{ fieldName: 'price', message: 'must be a number greater than 0' }],
      });
    });

    it('an unexpected failure inside a resolver answers INTERNAL_ERROR without its message, stack or paths', async () => {
      const product = await gqlCreateProduct(url, admin.access_token, { name: `Fragile ${randomUUID()}`, price: 1 });
      const useCases = service.container.get(resourceTokens('products').UseCases);
      const original = useCases.get.execute.bind(useCases.get);
      useCases.get.execute = () =>
        Promise.reject(new Error('SQLITE_ERROR: no such table: products (at /work/main/src/secret.ts:1)'));
      try {
        const response = await gql(`{ queryHealth { status } product(id: "${product.id}") { id } }`, {
          token: admin.access_token,
        });
        const error = gqlError(response, 'INTERNAL_ERROR');
        expect(error.message).to.equal('internal server error');
        expect(error.extensions).to.deep.equal({ code: 'INTERNAL_ERROR' });
        expect(response.body.data).to.deep.equal({ queryHealth: { status: 200 }, product: null });
        expect(response.text).not.to.match(/SQLITE|no such table|\/work|secret\.ts|stack/i);
      } finally {
        useCases.get.execute = original;
      }
      expect(
        gqlData(
          await gql<{ product: GqlProduct }>(GET_PRODUCT, { token: admin.access_token, variables: { id: product.id } }),
        ).product.id,
      ).to.equal(product.id);
    });
  });

  describe('GET requests', () => {
    it('a query works with ?query= (and ?variables=)', async () => {
      expect(gqlData(await gql('{ queryHealth { status message } }', { method: 'GET' }))).to.deep.equal({
        queryHealth: { status: 200, message: 'ok' },
      });
      const product = await gqlCreateProduct(url, admin.access_token, { name: `Via GET ${randomUUID()}`, price: 2 });
      const data = gqlData(
        await gql<{ product: GqlProduct }>(GET_PRODUCT, {
          method: 'GET',
          token: admin.access_token,
          variables: { id: product.id },
        }),
      );
      expect(data.product).to.deep.equal(product);
    });

    it('a mutation over GET is refused with 405 (Allow: POST) and does not run', async () => {
      const health = await gql('mutation { mutationHealth { status } }', { method: 'GET' });
      expect(health.status, health.text).to.equal(405);
      expect(health.headers.get('allow')).to.equal('POST');
      expect(health.body).not.to.have.property('data');

      const before = await restTotal();
      const create = await gql(CREATE_PRODUCT, {
        method: 'GET',
        token: admin.access_token,
        variables: { input: { ...PRODUCT_INPUT, name: `GET mutation ${randomUUID()}`, price: 1 } },
      });
      expect(create.status, create.text).to.equal(405);
      expect(await restTotal()).to.equal(before);
    });

    it('other methods on the general route are 405', async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const response = await api.send(method, '/graphql', { json: { query: '{ queryHealth { status } }' } });
        expect(response.status, `${method}: ${response.text}`).to.equal(405);
      }
    });
  });

  describe('query limits (refused before execution)', () => {
    it(`max_depth 15: a query 15 deep runs, 16 deep is refused with an error and no data`, async () => {
      expect(gqlData(await gql<{ __schema: unknown }>(deepQuery(15))).__schema).to.be.an('object');
      gqlRefused(await gql(deepQuery(16)), /depth/i);
      gqlRefused(await gql(deepQuery(40)), /depth/i);
    });

    it('asked for application/graphql-response+json, a refused document is a 4xx (so it certainly did not execute)', async () => {
      const response = await gql(deepQuery(16), { accept: GRAPHQL_RESPONSE });
      expect(response.status).to.equal(400);
      gqlRefused(response, /depth/i);
    });

    it('fragments do not hide depth', async () => {
      expect(gqlData(await gql(deepQuery(15, true)))).to.have.property('__schema');
      gqlRefused(await gql(deepQuery(16, true)), /depth/i);
    });

    it('graphql’s own getIntrospectionQuery() (15 deep) passes at the default limit', async () => {
      const data = gqlData(await gql<IntrospectionQuery>(getIntrospectionQuery()));
      expect(data.__schema.queryType.name).to.equal('Query');
      const full = getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
      });
      expect(gqlData(await gql<IntrospectionQuery>(full)).__schema.queryType.name).to.equal('Query');
    });

    it('30 aliases are accepted, 31 refused', async () => {
      const data = gqlData(await gql<Record<string, { status: number }>>(aliases(30)));
      expect(Object.keys(data)).to.have.length(30);
      expect(data.a29).to.deep.equal({ status: 200 });
      gqlRefused(await gql(aliases(31)), /alias/i);
    });

    it('500 fields are accepted, 501 refused', async () => {
      const fields = (count: number) => `{ queryHealth { ${'status '.repeat(count - 1)}} }`;
      expect(gqlData(await gql(fields(500)))).to.deep.equal({ queryHealth: { status: 200 } });
      gqlRefused(await gql(fields(501)), /fields/i);
    });

    it('a mutation over the field limit does not run', async () => {
      const before = await restTotal();
      const name = `too-wide-${randomUUID()}`;
      const response = await gql(
        `mutation ($input: CreateProductInput!) { createProduct(input: $input) { ${'status '.repeat(500)} } }`,
        { token: admin.access_token, variables: { input: { ...PRODUCT_INPUT, name, price: 1 } } },
      );
      gqlRefused(response, /fields/i);
      expect(await restTotal()).to.equal(before);
    });
  });

  describe('the HTTP middleware still applies on the general route', () => {
    it('a body over server.body_limit (1mb) → 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await api.post('/graphql', {
        json: { query: `{ queryHealth { status } } # ${'x'.repeat(1024 * 1024)}` },
      });
      expect(response.status, response.text.slice(0, 300)).to.equal(413);
      expect((response.body as ErrorJson).error.code).to.equal('PAYLOAD_TOO_LARGE');
    });

    it('a body that is not JSON → 400 "invalid request body"; a non-JSON content type → 415', async () => {
      expectError(
        await api.post('/graphql', { raw: '{"query": ', headers: { 'Content-Type': 'application/json' } }),
        400,
        'BAD_REQUEST',
        'invalid request body',
      );
      const response = await api.post('/graphql', {
        raw: '{ queryHealth { status } }',
        headers: { 'Content-Type': 'text/plain' },
      });
      expect(response.status).to.equal(415);
      expect((response.body as ErrorJson).error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });

    it('two Authorization headers → 400 BAD_REQUEST in the REST envelope, before graphql-http (even for public fields)', async () => {
      const body = JSON.stringify({ query: '{ queryHealth { status } }' });
      for (const values of [
        [`Bearer ${admin.access_token}`, `Bearer ${user.access_token}`],
        [`Bearer ${admin.access_token}`, 'Basic eDp5'],
      ]) {
        const headers = { Authorization: values, 'Content-Type': 'application/json', Accept: 'application/json' };
        for (const response of [
          await rawRequest(url, 'POST', '/graphql', headers, body),
          await rawRequest(url, 'GET', `/graphql?query=${encodeURIComponent('{ queryHealth { status } }')}`, headers),
        ]) {
          expect(response.status, response.text).to.equal(400);
          expect(JSON.parse(response.text)).to.deep.equal({
            success: false,
            error: { code: 'BAD_REQUEST', message: 'more than one Authorization header' },
          });
        }
      }
      const one = await rawRequest(
        url,
        'POST',
        '/graphql',
        { Authorization: `Bearer ${admin.access_token}`, 'Content-Type': 'application/json' },
        body,
      );
      expect(one.status, one.text).to.equal(200);
    });

    it('an X-Request-ID comes back', async () => {
      const response = await gql('{ queryHealth { status } }', { headers: { 'X-Request-ID': 'gql-trace-1' } });
      expect(response.headers.get('x-request-id')).to.equal('gql-trace-1');
    });
  });
});

describe('GraphQL with graphql.max_depth 14', function () {
  this.timeout(30_000);
  let service: RunningService;
  before(async () => {
    service = await startService(
      testConfig({
        SVC_API_MODE: 'both',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_GRAPHQL_MAX_DEPTH: '14',
      }),
      {
        logger: silentLogger(),
      },
    );
  });
  after(async () => service.stop());

  it('refuses getIntrospectionQuery() (15 deep) and a 15-deep query, runs a 14-deep one', async () => {
    gqlRefused(await graphql(service.url, getIntrospectionQuery()), /depth/i);
    gqlRefused(await graphql(service.url, deepQuery(15)), /depth/i);
    expect(gqlData(await graphql(service.url, deepQuery(14)))).to.have.property('__schema');
  });
});

describe('GraphQL with introspection off (graphql.introspection false)', function () {
  this.timeout(30_000);
  let service: RunningService;
  before(async () => {
    service = await startService(
      testConfig({
        SVC_API_MODE: 'both',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_GRAPHQL_INTROSPECTION: 'false',
      }),
      { logger: silentLogger() },
    );
  });
  after(async () => service.stop());

  it('refuses __schema and __type, with no data', async () => {
    gqlRefused(await graphql(service.url, '{ __schema { types { name } } }'), /introspection/i);
    gqlRefused(await graphql(service.url, '{ __type(name: "Product") { name } }'), /introspection/i);
    gqlRefused(await graphql(service.url, getIntrospectionQuery()), /introspection/i);
  });

  it('queries, mutations and __typename still work', async () => {
    expect(gqlData(await graphql(service.url, '{ __typename queryHealth { status message } }'))).to.deep.equal({
      __typename: 'Query',
      queryHealth: { status: 200, message: 'ok' },
    });
    expect(gqlData(await graphql(service.url, 'mutation { mutationHealth { status } }'))).to.deep.equal({
      mutationHealth: { status: 200 },
    });
    const api = new Api(service.url);
    const admin = await accountWithRole(service, api, 'admin');
    const product = await gqlCreateProduct(service.url, admin.access_token, {
      name: 'works without introspection',
      price: 1,
    });
    expect(
      gqlData(
        await graphql<{ product: GqlProduct }>(service.url, GET_PRODUCT, {
          token: admin.access_token,
          variables: { id: product.id },
        }),
      ).product,
    ).to.deep.equal(product);
  });
});

describe('GraphQL production defaults (SVC_ENV=production)', function () {
  this.timeout(30_000);
  const secret = 'a-production-secret-of-32-bytes!';
  let service: RunningService;
  let smtp: TestSmtpServer;
  before(async () => {
    expect(Buffer.byteLength(secret)).to.equal(32);
    smtp = await startSmtpServer();
    service = await startService(
      testConfig({
        SVC_ENV: 'production',
        SVC_JWT_SECRET: secret,
        SVC_SECRETS_ENCRYPTION_KEY: 'a production key for e-mailed links',
        SVC_STORAGE_SIGNING_SECRET: 'a production secret signing file links',
        SVC_MAIL_SMTP_URL: smtp.url,
        SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
        SVC_API_MODE: 'both',
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

  it('the playground route and its assets are 404 route not found', async () => {
    const api = new Api(service.url);
    expectError(await api.get('/graphql-playground'), 404, 'NOT_FOUND', 'route not found');
    expectError(await api.get('/graphql-playground/assets/graphiql.min.js'), 404, 'NOT_FOUND', 'route not found');
  });

  it('introspection is refused; queries still work', async () => {
    gqlRefused(await graphql(service.url, '{ __schema { types { name } } }'), /introspection/i);
    expect(gqlData(await graphql(service.url, '{ queryHealth { status message } }'))).to.deep.equal({
      queryHealth: { status: 200, message: 'ok' },
    });
  });
});

describe('GraphQL in production with playground and introspection set explicitly', function () {
  this.timeout(30_000);
  let service: RunningService;
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
    service = await startService(
      testConfig({
        SVC_ENV: 'production',
        SVC_JWT_SECRET: 'another-production-secret-32-byt',
        SVC_SECRETS_ENCRYPTION_KEY: 'a production key for e-mailed links',
        SVC_STORAGE_SIGNING_SECRET: 'a production secret signing file links',
        SVC_MAIL_SMTP_URL: smtp.url,
        SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
        SVC_API_MODE: 'both',
        SVC_GRAPHQL_PLAYGROUND: 'true',
        SVC_GRAPHQL_INTROSPECTION: 'true',
        SVC_RATE_LIMIT_ENABLED: 'false',
      }),
      { logger: silentLogger() },
    );
  });
  after(async () => {
    await service.stop();
    await smtp.close();
  });

  it('the explicit settings win over the production defaults', async () => {
    const page = await fetch(`${service.url}/graphql-playground`);
    expect(page.status).to.equal(200);
    expect(
      gqlData(await graphql<{ __schema: unknown }>(service.url, '{ __schema { queryType { name } } }')).__schema,
    ).to.deep.equal({ queryType: { name: 'Query' } });
  });
});

describe('api.mode rest (the default): no GraphQL', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;
  before(async () => {
    service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    api = new Api(service.url);
  });
  after(async () => service.stop());

  it('/graphql (GET and POST) and /graphql-playground are 404 route not found', async () => {
    expect(service.container.get(TOKENS.Config).api.mode).to.equal('rest');
    expectError(
      await api.post('/graphql', { json: { query: '{ queryHealth { status } }' } }),
      404,
      'NOT_FOUND',
      'route not found',
    );
    expectError(
      await api.get(`/graphql?query=${encodeURIComponent('{ queryHealth { status } }')}`),
      404,
      'NOT_FOUND',
      'route not found',
    );
    expectError(await api.get('/graphql-playground'), 404, 'NOT_FOUND', 'route not found');
    expectError(await api.get('/graphql-playground/assets/graphiql.min.js'), 404, 'NOT_FOUND', 'route not found');
  });

  it('/api/v1/products works', async () => {
    const admin = await accountWithRole(service, api, 'admin');
    dataOf(
      await api.post('/api/v1/products', {
        token: admin.access_token,
        json: { ...PRODUCT_BODY, name: 'rest only', price: 1 },
      }),
      201,
    );
    dataOf(await api.get('/api/v1/products', { token: admin.access_token }));
  });
});

describe('api.mode graphql: no REST products', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;
  before(async () => {
    const config = testConfig({ SVC_API_MODE: 'graphql', SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' });
    service = await startService(config, { logger: silentLogger() });
    // This service's own document: it has no product routes, so they are unknown paths here.
    api = new Api(service.url, contractFor(config));
  });
  after(async () => service.stop());

  it('/api/v1/products (and /search, /{id}) are 404 route not found, even with a token', async () => {
    const admin = await accountWithRole(service, api, 'admin');
    expectError(await api.get('/api/v1/products', { token: admin.access_token }), 404, 'NOT_FOUND', 'route not found');
    expectError(
      await api.post('/api/v1/products', { token: admin.access_token, json: { ...PRODUCT_BODY, name: 'x', price: 1 } }),
      404,
      'NOT_FOUND',
      'route not found',
    );
    expectError(
      await api.get('/api/v1/products/search?q=x', { token: admin.access_token }),
      404,
      'NOT_FOUND',
      'route not found',
    );
    expectError(
      await api.get(`/api/v1/products/${randomUUID()}`, { token: admin.access_token }),
      404,
      'NOT_FOUND',
      'route not found',
    );
  });

  it('/graphql, the playground, /api/v1/auth/register and login, and /health work', async () => {
    const account = await register(api);
    const session = dataOf<{ access_token: string }>(
      await api.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
    );
    expect(session.access_token).to.be.a('string');
    expect((await api.get('/health')).status).to.equal(200);
    expect((await fetch(`${service.url}/graphql-playground`)).status).to.equal(200);
    const admin = await accountWithRole(service, api, 'admin');
    const product = await gqlCreateProduct(service.url, admin.access_token, { name: 'graphql only', price: 2 });
    const list = gqlData(
      await graphql<{ products: GqlProductList }>(service.url, LIST_PRODUCTS, { token: session.access_token }),
    );
    expect(list.products.data.map((p) => p.id)).to.include(product.id);
  });
});

describe('GraphQL at a custom general route (SVC_GRAPHQL_GENERAL_ROUTE=/gql) with a small body limit', function () {
  this.timeout(30_000);
  let service: RunningService;
  let api: Api;
  before(async () => {
    service = await startService(
      testConfig({
        SVC_API_MODE: 'both',
        SVC_GRAPHQL_GENERAL_ROUTE: '/gql',
        SVC_SERVER_BODY_LIMIT: '2kb',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
      }),
      { logger: silentLogger() },
    );
    api = new Api(service.url);
  });
  after(async () => service.stop());

  it('serves GraphQL at /gql (POST and GET); /graphql is 404 route not found', async () => {
    expect(gqlData(await graphql(service.url, '{ queryHealth { status } }', { route: '/gql' }))).to.deep.equal({
      queryHealth: { status: 200 },
    });
    expect(
      gqlData(await graphql(service.url, '{ queryHealth { status } }', { route: '/gql', method: 'GET' })),
    ).to.deep.equal({ queryHealth: { status: 200 } });
    expectError(
      await api.post('/graphql', { json: { query: '{ queryHealth { status } }' } }),
      404,
      'NOT_FOUND',
      'route not found',
    );
  });

  it('the playground points at /gql', async () => {
    const html = await (await fetch(`${service.url}/graphql-playground`)).text();
    expect(html).to.include('"/gql"');
    expect(html).not.to.include('"/graphql"');
  });

  it('the body limit applies: 1.5kb runs, 3kb is 413', async () => {
    const padded = (bytes: number) => ({ query: `{ queryHealth { status } } # ${'x'.repeat(bytes)}` });
    const small = await api.post('/gql', { json: padded(1500) });
    expect(small.status, small.text).to.equal(200);
    const large = await api.post('/gql', { json: padded(3000) });
    expect(large.status, large.text).to.equal(413);
    expect((large.body as ErrorJson).error.code).to.equal('PAYLOAD_TOO_LARGE');
  });
});
