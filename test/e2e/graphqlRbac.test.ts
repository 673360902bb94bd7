import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pathsOf } from '../../src/adapters/inbound/resources.js';
import { PRODUCT } from '../../src/domain/product/Product.js';

const PRODUCT_PATHS = pathsOf(PRODUCT);
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api, register, type Account, type ApiResponse } from '../support/api.js';
import { testConfig } from '../support/config.js';
import {
  CREATE_PRODUCT,
  DELETE_PRODUCT,
  GET_PRODUCT,
  gqlCreateProduct,
  gqlData,
  gqlError,
  graphql,
  LIST_PRODUCTS,
  UPDATE_PRODUCT,
  type GqlCommonResponse,
  type GqlProduct,
  type GqlProductList,
  type GqlProductResponse,
  type GraphQLResponse,
} from '../support/graphql.js';
import { silentLogger } from '../support/logger.js';
import { PRODUCT_BODY, PRODUCT_INPUT } from '../support/resources/productBodies.js';

type Operation = 'products' | 'search' | 'product' | 'createProduct' | 'updateProduct' | 'deleteProduct';
const OPERATIONS: readonly Operation[] = [
  'products',
  'search',
  'product',
  'createProduct',
  'updateProduct',
  'deleteProduct',
];

describe('GraphQL access control (end to end)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let user: Account;
  let moderator: Account;
  let admin: Account;
  let accounts: Record<'user' | 'moderator' | 'admin', Account>;

  const gql = <D = Record<string, unknown>>(
    query: string,
    token: string | undefined,
    variables?: Record<string, unknown>,
  ) =>
    graphql<D>(service.url, query, { ...(token !== undefined ? { token } : {}), ...(variables ? { variables } : {}) });
  const fresh = () => gqlCreateProduct(service.url, admin.access_token, { name: `rbac ${randomUUID()}`, price: 10 });
  const read = async (id: string): Promise<GqlProduct | null> => {
    const response = await gql<{ product: GqlProduct }>(GET_PRODUCT, admin.access_token, { id });
    return response.body.errors?.[0]?.extensions?.code === 'NOT_FOUND' ? null : gqlData(response).product;
  };
  const count = async (): Promise<number> =>
    gqlData(await gql<{ products: GqlProductList }>(LIST_PRODUCTS, admin.access_token, { pagination: { limit: 1 } }))
      .products.pagination.totalRecords;

  /** One operation through GraphQL, on a product of its own where it needs one. */
  async function viaGraphQL(operation: Operation, token: string): Promise<GraphQLResponse<Record<string, unknown>>> {
    const product = await fresh();
    switch (operation) {
      case 'products':
        return gql(LIST_PRODUCTS, token, {});
      case 'search':
        return gql(LIST_PRODUCTS, token, { search: 'rbac' });
      case 'product':
        return gql(GET_PRODUCT, token, { id: product.id });
      case 'createProduct':
        return gql(CREATE_PRODUCT, token, {
          input: { ...PRODUCT_INPUT, name: `made by ${operation} ${randomUUID()}`, price: 1 },
        });
      case 'updateProduct':
        return gql(UPDATE_PRODUCT, token, { id: product.id, input: { price: 11 } });
      case 'deleteProduct':
        return gql(DELETE_PRODUCT, token, { id: product.id });
    }
  }

  /** The REST call the operation mirrors. */
  async function viaRest(operation: Operation, token: string): Promise<ApiResponse> {
    const product = await fresh();
    switch (operation) {
      case 'products':
        return api.get(PRODUCT_PATHS.collection, { token });
      case 'search':
        return api.get(`${PRODUCT_PATHS.search}?q=rbac`, { token });
      case 'product':
        return api.get(`${PRODUCT_PATHS.collection}/${product.id}`, { token });
      case 'createProduct':
        return api.post(PRODUCT_PATHS.collection, {
          token,
          json: { ...PRODUCT_BODY, name: `made by REST ${randomUUID()}`, price: 1 },
        });
      case 'updateProduct':
        return api.put(`${PRODUCT_PATHS.collection}/${product.id}`, { token, json: { price: 11 } });
      case 'deleteProduct':
        return api.delete(`${PRODUCT_PATHS.collection}/${product.id}`, { token });
    }
  }

  /** `allowed` (data, no errors) or the `extensions.code` of the one error. */
  function graphqlOutcome(response: GraphQLResponse<Record<string, unknown>>): string {
    expect(response.status, response.text).to.equal(200);
    if (response.body.errors === undefined) return 'allowed';
    expect(response.body.errors, response.text).to.have.length(1);
    return response.body.errors[0]!.extensions?.code ?? 'no code';
  }
  const restOutcome = (response: ApiResponse): string =>
    response.status >= 200 && response.status < 300
      ? 'allowed'
      : response.status === 403
        ? 'FORBIDDEN'
        : `HTTP ${response.status}`;

  const policy = (method: 'post' | 'delete', rule: { role: string; path: string; action: string }) =>
    api[method]('/api/v1/admin/policies', { token: admin.access_token, json: rule });

  before(async () => {
    service = await startService(
      testConfig({ SVC_API_MODE: 'both', SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }),
      {
        logger: silentLogger(),
      },
    );
    api = new Api(service.url);
    user = await register(api);
    moderator = await accountWithRole(service, api, 'moderator');
    admin = await accountWithRole(service, api, 'admin');
    accounts = { user, moderator, admin };
  });
  after(async () => service.stop());

  describe('every role, every operation: GraphQL answers as the mirrored REST call', () => {
    const expected: Record<keyof typeof accounts, Record<Operation, string>> = {
      user: {
        products: 'allowed',
        search: 'allowed',
        product: 'allowed',
        createProduct: 'FORBIDDEN',
        updateProduct: 'FORBIDDEN',
        deleteProduct: 'FORBIDDEN',
      },
      moderator: {
        products: 'allowed',
        search: 'allowed',
        product: 'allowed',
        createProduct: 'allowed',
        updateProduct: 'allowed',
        deleteProduct: 'allowed',
      },
      admin: {
        products: 'allowed',
        search: 'allowed',
        product: 'allowed',
        createProduct: 'allowed',
        updateProduct: 'allowed',
        deleteProduct: 'allowed',
      },
    };
    for (const role of ['user', 'moderator', 'admin'] as const) {
      it(role, async () => {
        for (const operation of OPERATIONS) {
          const token = accounts[role].access_token;
          const gqlAnswer = graphqlOutcome(await viaGraphQL(operation, token));
          const restAnswer = restOutcome(await viaRest(operation, token));
          expect({ operation, graphql: gqlAnswer, rest: restAnswer }).to.deep.equal({
            operation,
            graphql: expected[role][operation],
            rest: expected[role][operation],
          });
        }
      });
    }
  });

  describe('user', () => {
    it('may query product(id) and products (list and search)', async () => {
      const product = await fresh();
      expect(
        gqlData(await gql<{ product: GqlProduct }>(GET_PRODUCT, user.access_token, { id: product.id })).product,
      ).to.deep.equal(product);
      const listed = gqlData(
        await gql<{ products: GqlProductList }>(LIST_PRODUCTS, user.access_token, { search: product.name }),
      ).products;
      expect(listed.data).to.deep.equal([product]);
      expect(
        gqlData(await gql<{ products: GqlProductList }>(LIST_PRODUCTS, user.access_token, {})).products.data.length,
      ).to.be.greaterThan(0);
    });

    it('createProduct: FORBIDDEN "forbidden" with HTTP 200, data null, nothing created', async () => {
      const before = await count();
      const name = `forbidden ${randomUUID()}`;
      const response = await gql(CREATE_PRODUCT, user.access_token, { input: { ...PRODUCT_INPUT, name, price: 5 } });
      const error = gqlError(response, 'FORBIDDEN');
      expect(error.message).to.equal('forbidden');
      expect(error.path).to.deep.equal(['createProduct']);
      expect(response.body.data).to.equal(null);
      expect(await count()).to.equal(before);
      expect(
        gqlData(await gql<{ products: GqlProductList }>(LIST_PRODUCTS, admin.access_token, { search: name })).products
          .data,
      ).to.deep.equal([]);
    });

    it('updateProduct: FORBIDDEN, the product unchanged', async () => {
      const product = await fresh();
      const response = await gql(UPDATE_PRODUCT, user.access_token, {
        id: product.id,
        input: { name: 'mine now', price: 0.01 },
      });
      expect(gqlError(response, 'FORBIDDEN').path).to.deep.equal(['updateProduct']);
      expect(response.body.data).to.equal(null);
      expect(await read(product.id)).to.deep.equal(product);
    });

    it('deleteProduct: FORBIDDEN, the product still there', async () => {
      const product = await fresh();
      const response = await gql(DELETE_PRODUCT, user.access_token, { id: product.id });
      expect(gqlError(response, 'FORBIDDEN').path).to.deep.equal(['deleteProduct']);
      expect(response.body.data).to.equal(null);
      expect(await read(product.id)).to.deep.equal(product);
    });

    it('is refused before validation or lookup, like REST: an invalid input or an unknown id is still FORBIDDEN', async () => {
      gqlError(
        await gql(CREATE_PRODUCT, user.access_token, { input: { ...PRODUCT_INPUT, name: '', price: 0 } }),
        'FORBIDDEN',
      );
      gqlError(await gql(UPDATE_PRODUCT, user.access_token, { id: randomUUID(), input: { price: 0 } }), 'FORBIDDEN');
      gqlError(await gql(UPDATE_PRODUCT, user.access_token, { id: 'not-an-id', input: { name: 'x' } }), 'FORBIDDEN');
      gqlError(await gql(DELETE_PRODUCT, user.access_token, { id: randomUUID() }), 'FORBIDDEN');
      expect(
        (
          await api.post('/api/v1/products', {
            token: user.access_token,
            json: { ...PRODUCT_BODY, name: '', price: 0 },
          })
        ).status,
      ).to.equal(403);
      expect(
        (await api.put(`/api/v1/products/${randomUUID()}`, { token: user.access_token, json: { price: 0 } })).status,
      ).to.equal(403);
    });
  });

  describe('moderator and admin', () => {
    for (const role of ['moderator', 'admin'] as const) {
      it(`${role}: create (201), read, list, update (200) and delete (200)`, async () => {
        const token = accounts[role].access_token;
        const name = `${role} lamp ${randomUUID()}`;
        const { createProduct } = gqlData(
          await gql<{ createProduct: GqlProductResponse }>(CREATE_PRODUCT, token, {
            input: { ...PRODUCT_INPUT, name, price: 20 },
          }),
        );
        expect(createProduct.status).to.equal(201);
        const id = createProduct.data!.id;
        expect(gqlData(await gql<{ product: GqlProduct }>(GET_PRODUCT, token, { id })).product).to.include({
          id,
          name,
          price: 20,
        });
        expect(
          gqlData(await gql<{ products: GqlProductList }>(LIST_PRODUCTS, token, { search: name })).products.data.map(
            (p) => p.id,
          ),
        ).to.deep.equal([id]);
        const { updateProduct } = gqlData(
          await gql<{ updateProduct: GqlProductResponse }>(UPDATE_PRODUCT, token, { id, input: { price: 25 } }),
        );
        expect(updateProduct.status).to.equal(200);
        expect(updateProduct.data).to.include({ id, name, price: 25 });
        const { deleteProduct } = gqlData(
          await gql<{ deleteProduct: GqlCommonResponse }>(DELETE_PRODUCT, token, { id }),
        );
        expect(deleteProduct.status).to.equal(200);
        expect(await read(id)).to.equal(null);
      });
    }
  });

  describe('no token', () => {
    it('UNAUTHORIZED on each protected field, with HTTP 200', async () => {
      const product = await fresh();
      for (const operation of OPERATIONS) {
        const response =
          operation === 'product' || operation === 'updateProduct' || operation === 'deleteProduct'
            ? await gql(
                operation === 'product' ? GET_PRODUCT : operation === 'updateProduct' ? UPDATE_PRODUCT : DELETE_PRODUCT,
                undefined,
                {
                  id: product.id,
                  ...(operation === 'updateProduct' ? { input: { price: 1 } } : {}),
                },
              )
            : operation === 'createProduct'
              ? await gql(CREATE_PRODUCT, undefined, { input: { ...PRODUCT_INPUT, name: 'anonymous', price: 1 } })
              : await gql(LIST_PRODUCTS, undefined, operation === 'search' ? { search: 'rbac' } : {});
        const error = gqlError(response, 'UNAUTHORIZED');
        expect(error.message, operation).to.equal('missing bearer token');
      }
      expect(await read(product.id)).to.deep.equal(product);
    });

    it('queryHealth in the same document still returns its data', async () => {
      const product = await fresh();
      const response = await graphql(
        service.url,
        `{ queryHealth { status message } product(id: "${product.id}") { id name } }`,
      );
      const error = gqlError(response, 'UNAUTHORIZED');
      expect(error.path).to.deep.equal(['product']);
      expect(response.body.data).to.deep.equal({ queryHealth: { status: 200, message: 'ok' }, product: null });
    });
  });

  describe('policy changes at runtime take effect at once (same token, no new login)', () => {
    it('user + /api/v1/products POST lets the user createProduct; removing it forbids it again', async () => {
      const rule = { role: 'user', path: PRODUCT_PATHS.policy.collection, action: 'POST' };
      gqlError(
        await gql(CREATE_PRODUCT, user.access_token, {
          input: { ...PRODUCT_INPUT, name: 'before the rule', price: 1 },
        }),
        'FORBIDDEN',
      );
      expect((await policy('post', rule)).status).to.equal(201);
      try {
        const { createProduct } = gqlData(
          await gql<{ createProduct: GqlProductResponse }>(CREATE_PRODUCT, user.access_token, {
            input: { ...PRODUCT_INPUT, name: `user-made ${randomUUID()}`, price: 3 },
          }),
        );
        expect(createProduct.status).to.equal(201);
        expect(await read(createProduct.data!.id)).to.deep.equal(createProduct.data);
        // Only POST on the list path: update and delete stay forbidden.
        const product = await fresh();
        gqlError(await gql(UPDATE_PRODUCT, user.access_token, { id: product.id, input: { price: 2 } }), 'FORBIDDEN');
        gqlError(await gql(DELETE_PRODUCT, user.access_token, { id: product.id }), 'FORBIDDEN');
      } finally {
        expect((await policy('delete', rule)).status).to.equal(204);
      }
      gqlError(
        await gql(CREATE_PRODUCT, user.access_token, { input: { ...PRODUCT_INPUT, name: 'after the rule', price: 1 } }),
        'FORBIDDEN',
      );
    });

    it('user + /api/v1/products/{id} PUT lets the user updateProduct, and nothing else', async () => {
      const rule = { role: 'user', path: PRODUCT_PATHS.policy.item, action: 'PUT' };
      const product = await fresh();
      expect((await policy('post', rule)).status).to.equal(201);
      try {
        const { updateProduct } = gqlData(
          await gql<{ updateProduct: GqlProductResponse }>(UPDATE_PRODUCT, user.access_token, {
            id: product.id,
            input: { price: 77 },
          }),
        );
        expect(updateProduct.status).to.equal(200);
        expect(updateProduct.data).to.include({ id: product.id, price: 77 });
        gqlError(await gql(DELETE_PRODUCT, user.access_token, { id: product.id }), 'FORBIDDEN');
        gqlError(
          await gql(CREATE_PRODUCT, user.access_token, { input: { ...PRODUCT_INPUT, name: 'still not', price: 1 } }),
          'FORBIDDEN',
        );
      } finally {
        expect((await policy('delete', rule)).status).to.equal(204);
      }
      gqlError(await gql(UPDATE_PRODUCT, user.access_token, { id: product.id, input: { price: 78 } }), 'FORBIDDEN');
    });

    it('without user GET /api/v1/products: products is FORBIDDEN, search and product(id) still allowed — as in REST', async () => {
      const rule = { role: 'user', path: PRODUCT_PATHS.policy.collection, action: 'GET' };
      const product = await fresh();
      expect((await policy('delete', rule)).status).to.equal(204);
      try {
        gqlError(await gql(LIST_PRODUCTS, user.access_token, {}), 'FORBIDDEN');
        expect((await api.get('/api/v1/products', { token: user.access_token })).status).to.equal(403);
        expect(
          gqlData(await gql<{ products: GqlProductList }>(LIST_PRODUCTS, user.access_token, { search: product.name }))
            .products.data,
        ).to.deep.equal([product]);
        expect(
          (await api.get(`/api/v1/products/search?q=${encodeURIComponent(product.name)}`, { token: user.access_token }))
            .status,
        ).to.equal(200);
        expect(
          gqlData(await gql<{ product: GqlProduct }>(GET_PRODUCT, user.access_token, { id: product.id })).product,
        ).to.deep.equal(product);
        // A moderator inherits from user but has its own rule: unaffected.
        gqlData(await gql(LIST_PRODUCTS, moderator.access_token, {}));
      } finally {
        expect((await policy('post', rule)).status).to.equal(201);
      }
      gqlData(await gql(LIST_PRODUCTS, user.access_token, {}));
    });

    it('without user GET /api/v1/products/{id}: product(id) and search are FORBIDDEN — as in REST — while queryHealth beside them answers', async () => {
      const rule = { role: 'user', path: PRODUCT_PATHS.policy.item, action: 'GET' };
      const product = await fresh();
      expect((await policy('delete', rule)).status).to.equal(204);
      try {
        const response = await graphql(
          service.url,
          `{ queryHealth { status message } product(id: "${product.id}") { id } }`,
          { token: user.access_token },
        );
        expect(gqlError(response, 'FORBIDDEN').path).to.deep.equal(['product']);
        expect(response.body.data).to.deep.equal({ queryHealth: { status: 200, message: 'ok' }, product: null });
        expect((await api.get(`/api/v1/products/${product.id}`, { token: user.access_token })).status).to.equal(403);
        gqlError(await gql(LIST_PRODUCTS, user.access_token, { search: product.name }), 'FORBIDDEN');
        expect(
          (await api.get(`/api/v1/products/search?q=${encodeURIComponent(product.name)}`, { token: user.access_token }))
            .status,
        ).to.equal(403);
        gqlData(await gql(LIST_PRODUCTS, user.access_token, {}));
      } finally {
        expect((await policy('post', rule)).status).to.equal(201);
      }
      expect(
        gqlData(await gql<{ product: GqlProduct }>(GET_PRODUCT, user.access_token, { id: product.id })).product,
      ).to.deep.equal(product);
    });
  });
});
