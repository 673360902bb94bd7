import { mkdirSync, readdirSync } from 'node:fs';
import { expect } from 'chai';
import { Api, dataOf, expectError, type ApiResponse } from '../../support/api.js';
import { servedContract } from '../../support/contract.js';
import { externalService } from '../../support/env.js';
import { gqlData, graphql } from '../../support/graphql.js';
import {
  AUTHOR_ARGS,
  BOOK_ARGS,
  BOOK_ORDER_ARGS,
  CUSTOMER_ARGS,
  INVOICE_ARGS,
  PRODUCT_ARGS,
  productModel,
  squeezed,
  WIDGET_ARGS,
} from './models.js';
import { MIGRATIONS_DIR, projectState } from '../../../tools/generate/project.js';
import { camelOf, namesOf } from '../../../tools/generate/model.js';
import { PRODUCT } from '../../../src/domain/product/Product.js';
import { PRODUCT_BODY, productsChanged } from '../../support/resources/productBodies.js';
import {
  createAdmin,
  MODULE_LIST,
  PASSWORD,
  pathsIn,
  run,
  POLICY,
  productSlice,
  rulesOf,
  ScratchCopy,
  ScratchPostgres,
  startServer,
  withoutProductRules,
  withoutProductsModule,
  type Finished,
  type ScratchService,
} from './scratch.js';

/** Products changed on purpose (`generate field product …`): the steps about products as shipped are skipped. */
const PRODUCTS_CHANGED = await productsChanged();
/** The field week two adds to products: `stock`, unless this project's products have one already. */
const PRODUCT_FIELD =
  ['stock', 'stock_two', 'stock_three'].find((name) => !(camelOf(name) in PRODUCT.fields)) ?? 'stock_four';
/** The typed client's types of the API document, which the generator refreshes after it writes. */
const TYPED_CLIENT = 'test/support/openapi/portico.d.ts';

/** What the scratch test reads of the API document. */
interface Schema {
  readonly type?: string | string[];
  readonly format?: string;
  readonly enum?: unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly properties?: Record<string, Schema>;
  readonly required?: string[];
  readonly $ref?: string;
}
interface DocumentedOperation {
  readonly parameters?: {
    readonly name: string;
    readonly in: string;
    readonly required: boolean;
    readonly schema: Schema;
  }[];
  readonly requestBody?: { readonly content: Record<string, { readonly schema: Schema }> };
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema: Schema }> }>;
}
interface OpenApiDocument {
  readonly paths: Record<string, Record<string, DocumentedOperation>>;
  readonly components: { readonly schemas: Record<string, Schema> };
}

/** A migration file the generator writes: named by its UTC creation time and what it does. */
const STAMPED_MIGRATION = (slug: string): RegExp =>
  new RegExp(`^src/adapters/outbound/mikroorm/migrations/\\d{8}T\\d{4}(\\d{2})?_${slug}\\.ts$`);
/** Products' migration as shipped: its legacy name, where `generate resource product` now names it by the time. */
const SHIPPED_PRODUCTS = 'Migration0002Products';
const asShipped = (path: string): string =>
  path.replace(/\/\d{8}T\d{4}(\d{2})?_products\.ts$/, `/${SHIPPED_PRODUCTS}.ts`);
const shippedText = (text: string): string =>
  text.replace(/\bMigration\d{8}T\d{4}(\d{2})?Products\b/, SHIPPED_PRODUCTS);

/** Asserts a command ended with `code`, showing what it printed when it did not. */
function expectExit(result: Finished, code: number, what: string): void {
  expect(result.code, `${what} exited ${result.code}:\n${result.stdout}\n${result.stderr}`).to.equal(code);
}

/** Logs in on the copy's service and answers the access token. */
async function tokenOf(api: Api, email: string): Promise<string> {
  return dataOf<{ access_token: string }>(await api.post('/api/v1/auth/login', { json: { email, password: PASSWORD } }))
    .access_token;
}

/**
 * Issue 10's proof that the generator works end to end, in one scratch copy of the repository:
 * products removed and regenerated give back the committed files (the golden rule); resources
 * generated there — a plain widget, customer and invoice, and the chain author ← book ← book order —
 * each write at most 4 source files and 150 lines and one test file (issue 34), and right after,
 * untouched, pass lint, the type check, the layer rule and their own tests; the service serves them
 * over REST and GraphQL with their references and access rules.
 */
describe('generate: in a scratch copy of the repository', function () {
  this.timeout(1_200_000);
  const source = process.cwd();
  let copy: ScratchCopy;
  const slice = () =>
    productSlice(productModel(), {
      ...projectState(['user'], '0002'),
      files: { [MODULE_LIST]: copy.readSource(MODULE_LIST), [POLICY]: copy.readSource(POLICY) },
    });
  /** The first step that failed: the steps after it depend on it and say so instead of failing obscurely. */
  let failed: string | undefined;

  const step = (title: string, body: () => Promise<void>) =>
    it(title, async function () {
      if (failed !== undefined) throw new Error(`not run: the step "${failed}" failed`);
      try {
        await body();
      } catch (error) {
        failed = title;
        throw error;
      }
    });

  /** A step about products as shipped (the golden rule): skipped once products were changed on purpose. */
  const goldenStep = (title: string, body: () => Promise<void>) =>
    PRODUCTS_CHANGED ? it.skip(title, body) : step(title, body);

  before(async function () {
    this.timeout(300_000);
    copy = await ScratchCopy.of(source);
  });
  after(() => copy?.dispose());

  /**
   * Starts the copy's service on the SQLite file `name`: a fresh one gets an admin made by the copy's
   * CLI and a registered user; `again` serves one a previous `serve(name)` filled, logging both in.
   */
  async function serve(
    name: string,
    again = false,
  ): Promise<{ service: ScratchService; api: Api; admin: string; user: string }> {
    mkdirSync(copy.path('.tmp'), { recursive: true });
    const env = {
      SVC_DATABASE_URL: `sqlite:${copy.path(`.tmp/${name}.sqlite`)}`,
      SVC_API_MODE: 'both',
      SVC_SERVER_PORT: '0',
      SVC_METRICS_PORT: '0',
      SVC_SERVER_HOST: '127.0.0.1',
      SVC_AUTH_BCRYPT_COST: '4',
      SVC_LOG_LEVEL: 'warn',
    };
    const email = `admin-${name}@example.com`;
    if (again) {
      const service = await startServer(copy, env);
      const api = new Api(service.url, await servedContract(service.url));
      return { service, api, admin: await tokenOf(api, email), user: await tokenOf(api, `user-${name}@example.com`) };
    }
    await createAdmin(copy, email, env);
    const service = await startServer(copy, env);
    // Its own document: the copy's generated resources are checked against what it says of them.
    const api = new Api(service.url, await servedContract(service.url));
    const user = dataOf<{ access_token: string }>(
      await api.post('/api/v1/auth/register', {
        json: { email: `user-${name}@example.com`, password: PASSWORD, first_name: 'Una', last_name: 'User' },
      }),
      201,
    ).access_token;
    return { service, api, admin: await tokenOf(api, email), user };
  }

  const gql = async <D>(
    service: ScratchService,
    token: string,
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<D> => gqlData(await graphql<D>(service.url, query, { token, variables }));

  step('copies the tracked files, with node_modules linked', async () => {
    for (const path of ['package.json', MODULE_LIST, POLICY, 'tools/generate/cli.ts', 'src/domain/product/Product.ts'])
      expect(copy.exists(path), path).to.equal(true);
    expect(copy.exists('.git')).to.equal(false);
    expect(copy.exists('node_modules/tsx/package.json')).to.equal(true);
  });

  step('serves products in the copy as it is (REST and GraphQL, 403 for a user on POST)', async () => {
    const { service, api, admin, user } = await serve('before');
    try {
      const product = dataOf<{ id: string; name: string }>(
        await api.post('/api/v1/products', {
          token: admin,
          json: { ...PRODUCT_BODY, name: 'Walnut desk', price: 19.99 },
        }),
        201,
      );
      expect(product.name).to.equal('Walnut desk');
      expectError(
        await api.post('/api/v1/products', { token: user, json: { ...PRODUCT_BODY, name: 'Oak chair', price: 5 } }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
      expect((await api.get(`/api/v1/products/${product.id}`, { token: user })).status).to.equal(200);
      const listed = await gql<{ products: { data: { id: string }[] } }>(
        service,
        admin,
        '{ products(search: "walnut") { data { id } } }',
      );
      expect(listed.products.data.map((p) => p.id)).to.deep.equal([product.id]);
    } finally {
      expect(await service.stop()).to.equal(0);
    }
  });

  goldenStep('removes the product resource: its files, its module entry, its four policy rules', async () => {
    const paths = slice();
    for (const path of paths) {
      expect(copy.exists(path), `${path} is not in the repository`).to.equal(true);
      copy.remove(path);
    }
    copy.write(MODULE_LIST, withoutProductsModule(copy.read(MODULE_LIST)));
    copy.write(POLICY, withoutProductRules(copy.read(POLICY)).text);
  });

  goldenStep(
    '--dry-run lists the files it would create, and as changed only the module list and policy.csv, writing nothing',
    async () => {
      const result = await copy.npm('generate', ['resource', ...PRODUCT_ARGS, '--dry-run']);
      expectExit(result, 0, 'generate --dry-run');
      expect(pathsIn(result.stdout, 'would change')).to.deep.equal([MODULE_LIST, POLICY].sort());
      expect(pathsIn(result.stdout, 'would create').map(asShipped)).to.deep.equal(slice());
      for (const path of pathsIn(result.stdout, 'would create'))
        expect(copy.exists(path), `--dry-run wrote ${path}`).to.equal(false);
    },
  );

  goldenStep('regenerates products exactly as committed, whitespace aside (the golden rule)', async () => {
    const result = await copy.npm('generate', ['resource', ...PRODUCT_ARGS]);
    expectExit(result, 0, 'generate product');
    const created = pathsIn(result.stdout, 'created');
    expect(created.map(asShipped)).to.deep.equal(slice());
    expect(pathsIn(result.stdout, 'changed')).to.deep.equal([MODULE_LIST, POLICY].sort());
    // Its migration is named by the time it was made now; products shipped with their legacy name.
    const differing = created.filter(
      (path) => squeezed(shippedText(copy.read(path))) !== squeezed(copy.readSource(asShipped(path))),
    );
    expect(differing, 'regenerated files that differ from the committed ones').to.deep.equal([]);
    expect(squeezed(copy.read(MODULE_LIST))).to.equal(squeezed(copy.readSource(MODULE_LIST)));
    expect(rulesOf(copy.read(POLICY))).to.deep.equal(rulesOf(copy.readSource(POLICY)));
    // The copy goes on as the project is: products' migration under the name databases recorded.
    for (const path of created.filter((p) => asShipped(p) !== p)) {
      copy.remove(path);
      copy.write(asShipped(path), copy.readSource(asShipped(path)));
    }
  });

  const created: string[] = [];
  /** What one `generate resource` wrote: the files it created and changed, and the lines it added to src/. */
  const written: { name: string; created: string[]; changed: string[]; sourceLines: number }[] = [];
  const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  step(
    'generates widget (plain), customer (with search), invoice (a reference to customer, every other type, an optional text and integer), and author ← book (--search, a ref, an enum) ← book order',
    async () => {
      for (const args of [WIDGET_ARGS, CUSTOMER_ARGS, INVOICE_ARGS, AUTHOR_ARGS, BOOK_ARGS, BOOK_ORDER_ARGS]) {
        const before = lineCount(copy.read(MODULE_LIST));
        const result = await copy.npm('generate', ['resource', ...args]);
        expectExit(result, 0, `generate ${args[0]}`);
        // The typed client's types are built from the document before the type check, not written here.
        const changed = pathsIn(result.stdout, 'changed');
        expect(changed).to.deep.equal([MODULE_LIST, POLICY].sort());
        const files = pathsIn(result.stdout, 'created');
        const sourceLines =
          files.filter((path) => path.startsWith('src/')).reduce((sum, path) => sum + lineCount(copy.read(path)), 0) +
          lineCount(copy.read(MODULE_LIST)) -
          before;
        written.push({ name: args[0]!, created: files, changed, sourceLines });
        created.push(...files);
      }
      // Issue 34: a resource is its declaration, its migration, its line in the module list (and its rules), and one test file.
      for (const { name, created: files, changed, sourceLines } of written) {
        const { pascal, pluralCamel } = namesOf(name);
        const sources = [...files, ...changed].filter((path) => path.startsWith('src/'));
        expect(files, name).to.include.members([
          `src/domain/${name}/${pascal}.ts`,
          `test/resources/${pluralCamel}.test.ts`,
        ]);
        expect(sources.length, `${name}: ${sources.join(', ')}`).to.be.at.most(4);
        expect(sourceLines, `${name}: lines written to src/`).to.be.at.most(150);
        expect(
          files.filter((path) => path.startsWith('test/')),
          name,
        ).to.have.length(1);
      }
      const widget = written.find((w) => w.name === 'widget')!;
      expect(widget.created).to.have.length(3);
      expect(widget.created).to.include.members(['src/domain/widget/Widget.ts', 'test/resources/widgets.test.ts']);
      expect(widget.created.filter((path) => STAMPED_MIGRATION('widgets').test(path))).to.have.length(1);
      expect(copy.read(MODULE_LIST)).to.match(
        /resourceModule\(Widget\),\s*resourceModule\(Customer\),\s*resourceModule\(Invoice\),\s*resourceModule\(Author\),\s*resourceModule\(Book\),\s*resourceModule\(BookOrder\),?\s*\]/,
      );
      expect(rulesOf(copy.read(POLICY))).to.include.members([
        'p, user, /api/v1/customers, GET',
        'p, user, /api/v1/customers/{id}, GET',
        'p, moderator, /api/v1/customers, .*',
        'p, moderator, /api/v1/customers/{id}, .*',
        'p, user, /api/v1/invoices, GET',
        'p, moderator, /api/v1/invoices/{id}, .*',
        'p, user, /api/v1/customers/{id}/invoices, GET',
        'p, moderator, /api/v1/customers/{id}/invoices, .*',
      ]);
      // A second run refuses (the resource exists now), with exit 2 and nothing written.
      const again = await copy.npm('generate', ['resource', ...CUSTOMER_ARGS]);
      expectExit(again, 2, 'generate customer again');
    },
  );

  step('passes lint (eslint and the layer rule) untouched', async () => {
    expectExit(await copy.npm('lint', [], {}, 900_000), 0, 'npm run lint');
  });

  step('passes the type check untouched, the typed client built first with the new resources in it', async () => {
    expectExit(await copy.npm('typecheck', [], {}, 900_000), 0, 'npm run typecheck');
    expect(copy.read(TYPED_CLIENT)).to.match(/^ {4}["']\/api\/v1\/customers\/\{id\}\/invoices["']: \{$/m);
  });

  step(
    'lists the new resources in the API document (npm run cli -- openapi): every route, field and list parameter',
    async () => {
      const printed = await copy.npm('cli', ['openapi'], {}, 120_000);
      expectExit(printed, 0, 'npm run cli -- openapi');
      const document = JSON.parse(printed.stdout) as OpenApiDocument;
      const methods = (path: string) => Object.keys(document.paths[path] ?? {}).sort();
      expect(methods('/api/v1/customers')).to.deep.equal(['get', 'post']);
      expect(methods('/api/v1/customers/search')).to.deep.equal(['get']);
      expect(methods('/api/v1/customers/{id}')).to.deep.equal(['delete', 'get', 'put']);
      expect(methods('/api/v1/invoices')).to.deep.equal(['get', 'post']);
      expect(document.paths, 'invoices have no --search').not.to.have.property('/api/v1/invoices/search');
      expect(methods('/api/v1/invoices/{id}')).to.deep.equal(['delete', 'get', 'put']);
      // The relation: a customer's invoices, with the list's parameters and a 404 for an unknown customer.
      expect(methods('/api/v1/customers/{id}/invoices')).to.deep.equal(['get']);
      const nested = document.paths['/api/v1/customers/{id}/invoices']?.get;
      expect(nested?.parameters?.map((p) => p.name)).to.include.members(['id', 'page', 'per_page', 'sort', 'order']);
      expect(Object.keys(nested?.responses ?? {})).to.include.members(['200', '401', '403', '404']);

      // Each field with its type, format, bounds and values, an optional one nullable.
      const fields = (name: string) => document.components.schemas[name]?.properties ?? {};
      expect(fields('Customer')).to.deep.include({
        name: { type: 'string', minLength: 1, maxLength: 200, description: 'Must be 1 to 200 characters' },
        tier: { type: 'string', enum: ['free', 'pro'], description: 'Must be one of free, pro' },
      });
      expect(fields('Customer').email).to.include({ type: 'string', format: 'email' });
      const invoice = fields('Invoice');
      expect(Object.keys(invoice)).to.deep.equal([
        'id',
        'customer_id',
        'number',
        'total',
        'amount',
        'due_at',
        'paid',
        'notes',
        'score',
        'created_at',
        'updated_at',
      ]);
      expect(invoice.amount).to.deep.include({
        type: ['string', 'number'],
        pattern: '^-?\\d{1,10}(\\.\\d{1,2})?$',
        minimum: 0,
      });
      expect(invoice.customer_id).to.include({ type: 'string', format: 'uuid' });
      expect(invoice.number).to.include({ type: 'string', minLength: 1, maxLength: 80 });
      expect(invoice.total).to.include({ type: 'number' });
      expect(invoice.due_at).to.include({ type: 'string', format: 'date-time' });
      expect(invoice.paid).to.include({ type: 'boolean' });
      expect(invoice.notes?.type).to.deep.equal(['string', 'null']);
      expect(invoice.score).to.deep.include({ type: ['integer', 'null'], minimum: 0, maximum: 10 });
      const created = document.paths['/api/v1/invoices']?.post?.requestBody?.content['application/json']?.schema;
      expect(created?.required).to.deep.equal(['customer_id', 'number', 'total', 'amount', 'due_at', 'paid']);
      expect(created?.properties?.score).to.deep.equal(invoice.score);
      const answered =
        document.paths['/api/v1/invoices/{id}']?.get?.responses['200']?.content?.['application/json']?.schema;
      expect(answered?.properties?.data).to.deep.equal({ $ref: '#/components/schemas/Invoice' });

      // The list's sort lists the sortable fields; the ref field is a filter; search takes q.
      const parameter = (path: string, name: string) =>
        document.paths[path]?.get?.parameters?.find((p) => p.name === name);
      expect(parameter('/api/v1/invoices', 'sort')?.schema.enum).to.deep.equal([
        'customer_id',
        'number',
        'total',
        'amount',
        'due_at',
        'paid',
        'score',
        'created_at',
        'updated_at',
      ]);
      expect(parameter('/api/v1/invoices', 'customer_id')).to.deep.include({
        in: 'query',
        required: false,
        schema: { type: 'string', format: 'uuid' },
      });
      expect(parameter('/api/v1/customers', 'sort')?.schema.enum).to.deep.equal([
        'name',
        'email',
        'tier',
        'created_at',
        'updated_at',
      ]);
      expect(parameter('/api/v1/customers/search', 'q')).to.include({ in: 'query', required: true });
      // The chain: a book is searched and belongs to an author; a book order belongs to a book.
      expect(methods('/api/v1/books/search')).to.deep.equal(['get']);
      expect(methods('/api/v1/authors/{id}/books')).to.deep.equal(['get']);
      expect(methods('/api/v1/books/{id}/book-orders')).to.deep.equal(['get']);
      expect(fields('Book').format).to.include({ type: 'string' });
      expect(fields('Book').format?.enum).to.deep.equal(['paper', 'ebook']);
      expect(fields('Widget').price).to.deep.include({ type: ['string', 'number'] });
      expect(parameter('/api/v1/customers/search', 'sort')?.schema.enum).to.deep.equal([
        'name',
        'email',
        'tier',
        'created_at',
        'updated_at',
      ]);
    },
  );

  step("passes the new resources' own tests, the repository contract on PostgreSQL included", async () => {
    const tests = created.filter((path) => path.endsWith('.test.ts'));
    expect(tests.length, 'one test file per generated resource').to.equal(written.length);
    const postgres = externalService('SVC_TEST_POSTGRES_URL');
    const database = postgres === undefined ? undefined : await ScratchPostgres.create(postgres);
    try {
      const env: Record<string, string> = database ? { SVC_TEST_POSTGRES_URL: database.url } : {};
      const result = await copy.node('node_modules/mocha/bin/mocha.js', tests, env, 900_000);
      expectExit(result, 0, 'mocha on the generated tests');
      expect(result.stdout).to.match(/\d+ passing/);
      if (database) expect(result.stdout).to.include('on PostgreSQL');
    } finally {
      await database?.drop();
    }
  });

  step(
    'serves both: a REST and GraphQL round trip, 409 for a referenced customer, 403 for a user on POST',
    async () => {
      const { service, api, admin, user } = await serve('after');
      const expectStatus = (response: ApiResponse, status: number) =>
        expect(response.status, response.text).to.equal(status);
      try {
        // REST
        const customer = dataOf<Record<string, unknown> & { id: string }>(
          await api.post('/api/v1/customers', {
            token: admin,
            json: { name: ' Ada Lovelace ', email: 'ADA@Example.com', tier: 'pro' },
          }),
          201,
        );
        expect(customer).to.deep.include({ name: 'Ada Lovelace', email: 'ada@example.com', tier: 'pro' });
        const found = dataOf<{ id: string }[]>(await api.get('/api/v1/customers/search?q=LOVE', { token: user }));
        expect(found.map((c) => c.id)).to.deep.equal([customer.id]);
        const invoiceBody = {
          customer_id: customer.id,
          number: 'INV-0001',
          total: 99.5,
          amount: 0.1,
          due_at: '2026-05-01T12:00:00+02:00',
          paid: false,
        };
        const invoice = dataOf<Record<string, unknown> & { id: string }>(
          await api.post('/api/v1/invoices', { token: admin, json: invoiceBody }),
          201,
        );
        expect(invoice).to.deep.include({
          ...invoiceBody,
          amount: '0.10',
          due_at: '2026-05-01T10:00:00.000Z',
          notes: null,
        });
        const filtered = dataOf<{ id: string }[]>(
          await api.get(`/api/v1/invoices?customer_id=${customer.id}`, { token: user }),
        );
        expect(filtered.map((i) => i.id)).to.deep.equal([invoice.id]);
        // The relation as a nested route: the list's envelope, 404 for an unknown customer, the list's rules.
        const nestedList = await api.get(`/api/v1/customers/${customer.id}/invoices?sort=amount&order=desc`, {
          token: user,
        });
        expect(dataOf<{ id: string }[]>(nestedList).map((i) => i.id)).to.deep.equal([invoice.id]);
        expect((nestedList.body as { meta?: unknown }).meta).to.deep.equal({
          page: 1,
          per_page: 20,
          total: 1,
          total_pages: 1,
        });
        expectError(
          await api.get('/api/v1/customers/00000000-0000-4000-8000-00000000dead/invoices', { token: user }),
          404,
          'NOT_FOUND',
          'Customer not found',
          { detail: 'id: 00000000-0000-4000-8000-00000000dead' },
        );
        expectStatus(await api.get(`/api/v1/customers/${customer.id}/invoices`), 401);
        const paid = await api.put(`/api/v1/invoices/${invoice.id}`, {
          token: admin,
          json: { paid: true, notes: 'Paid by transfer', amount: '0.20' },
          headers: { 'If-Match': '"1"' },
        });
        expect(dataOf<Record<string, unknown>>(paid)).to.deep.include({
          paid: true,
          notes: 'Paid by transfer',
          total: 99.5,
          amount: '0.20',
        });
        expectError(
          await api.post('/api/v1/invoices', { token: admin, json: { ...invoiceBody, amount: '0.105' } }),
          400,
          'VALIDATION_ERROR',
          'validation failed',
          {
            fields: [
              {
                field: 'amount',
                message: 'must be a decimal of at most 10 digits before the point and 2 after, of at least 0.00',
              },
            ],
          },
        );
        expect(paid.headers.get('etag')).to.equal('"2"');
        expectError(
          await api.delete(`/api/v1/customers/${customer.id}`, { token: admin }),
          409,
          'CONFLICT',
          'Customer is still referenced',
          { detail: `id: ${customer.id}` },
        );
        expectError(
          await api.post('/api/v1/customers', {
            token: user,
            json: { name: 'Una', email: 'una@example.com', tier: 'free' },
          }),
          403,
          'FORBIDDEN',
          'forbidden',
        );
        expectError(
          await api.post('/api/v1/invoices', { token: user, json: invoiceBody }),
          403,
          'FORBIDDEN',
          'forbidden',
        );
        expectError(
          await api.post('/api/v1/invoices', {
            token: admin,
            json: { ...invoiceBody, customer_id: '00000000-0000-4000-8000-00000000dead' },
          }),
          400,
          'VALIDATION_ERROR',
          'validation failed',
          { fields: [{ field: 'customer_id', message: 'must name an existing customer' }] },
        );

        // GraphQL
        const second = await gql<{ createCustomer: { status: number; data: { id: string; tier: string } } }>(
          service,
          admin,
          'mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { status data { id tier } } }',
          { input: { name: 'Grace Hopper', email: 'grace@example.org', tier: 'FREE' } },
        );
        expect(second.createCustomer).to.deep.include({ status: 201 });
        expect(second.createCustomer.data.tier).to.equal('FREE');
        const listed = await gql<{ customers: { data: { id: string }[]; pagination: { totalRecords: number } } }>(
          service,
          user,
          '{ customers(search: "grace", sort: { sortByField: "name", sortOrientation: ASC }) { data { id } pagination { totalRecords } } }',
        );
        expect(listed.customers.data.map((c) => c.id)).to.deep.equal([second.createCustomer.data.id]);
        const created = await gql<{
          createInvoice: { status: number; data: { id: string; customerId: string; dueAt: string; amount: string } };
        }>(
          service,
          admin,
          'mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { status data { id customerId dueAt amount } } }',
          {
            input: {
              customerId: second.createCustomer.data.id,
              number: 'INV-0002',
              total: 10,
              amount: '1234.5',
              dueAt: '2026-06-01T00:00:00Z',
              paid: false,
            },
          },
        );
        expect(created.createInvoice).to.deep.include({ status: 201 });
        expect(created.createInvoice.data).to.deep.include({
          customerId: second.createCustomer.data.id,
          dueAt: '2026-06-01T00:00:00.000Z',
          amount: '1234.50',
        });
        const invoices = await gql<{ invoices: { data: { id: string }[] } }>(
          service,
          user,
          'query($c: ID) { invoices(customerId: $c) { data { id } } }',
          {
            c: second.createCustomer.data.id,
          },
        );
        expect(invoices.invoices.data.map((i) => i.id)).to.deep.equal([created.createInvoice.data.id]);
        // The relation both ways: Invoice.customer, and Customer.invoices(...) with the list's arguments.
        const related = await gql<{
          invoices: { data: { number: string; customer: { name: string } }[] };
          customers: { data: { name: string; invoices: { data: { number: string }[] } }[] };
        }>(
          service,
          user,
          `{ invoices(sort: { sortByField: "number", sortOrientation: ASC }) { data { number customer { name } } }
             customers(sort: { sortByField: "name", sortOrientation: ASC }) { data { name invoices { data { number } } } } }`,
        );
        expect(related.invoices.data).to.deep.equal([
          { number: 'INV-0001', customer: { name: 'Ada Lovelace' } },
          { number: 'INV-0002', customer: { name: 'Grace Hopper' } },
        ]);
        expect(related.customers.data).to.deep.equal([
          { name: 'Ada Lovelace', invoices: { data: [{ number: 'INV-0001' }] } },
          { name: 'Grace Hopper', invoices: { data: [{ number: 'INV-0002' }] } },
        ]);
        const forbidden = await graphql(
          service.url,
          'mutation { deleteInvoice(id: "00000000-0000-4000-8000-00000000dead") { status } }',
          { token: user },
        );
        expect(forbidden.body.errors?.[0]?.extensions?.code, forbidden.text).to.equal('FORBIDDEN');
        const updated = await gql<{ updateInvoice: { status: number; data: { paid: boolean } } }>(
          service,
          admin,
          'mutation($id: ID!) { updateInvoice(id: $id, input: { paid: true, amount: 9.99 }) { status data { paid amount } } }',
          { id: created.createInvoice.data.id },
        );
        expect(updated.updateInvoice).to.deep.equal({ status: 200, data: { paid: true, amount: '9.99' } });
        for (const [mutation, id] of [
          ['deleteInvoice', created.createInvoice.data.id],
          ['deleteCustomer', second.createCustomer.data.id],
        ] as const) {
          const deleted = await gql<Record<string, { status: number }>>(
            service,
            admin,
            `mutation($id: ID!) { ${mutation}(id: $id) { status } }`,
            { id },
          );
          expect(deleted[mutation]).to.deep.equal({ status: 200 });
        }

        // Once nothing names it, the first customer can go.
        expectStatus(await api.delete(`/api/v1/invoices/${invoice.id}`, { token: admin }), 204);
        expectStatus(await api.delete(`/api/v1/customers/${customer.id}`, { token: admin }), 204);
        // The chain of three: a book order names a book, which names an author; each is served both ways.
        const author = dataOf<{ id: string }>(
          await api.post('/api/v1/authors', { token: admin, json: { name: 'Ursula' } }),
          201,
        );
        const book = dataOf<{ id: string }>(
          await api.post('/api/v1/books', {
            token: admin,
            json: { author_id: author.id, title: 'The Dispossessed', format: 'paper' },
          }),
          201,
        );
        const order = dataOf<{ id: string }>(
          await api.post('/api/v1/book-orders', { token: admin, json: { book_id: book.id, quantity: 2 } }),
          201,
        );
        const ids = (response: ApiResponse) => dataOf<{ id: string }[]>(response).map((row) => row.id);
        expect(ids(await api.get(`/api/v1/books/${book.id}/book-orders`, { token: user }))).to.deep.equal([order.id]);
        expect(ids(await api.get('/api/v1/books/search?q=DISPOSSESSED', { token: user }))).to.deep.equal([book.id]);
        const chain = await gql<{
          bookOrders: {
            data: { quantity: number; book: { title: string; format: string; author: { name: string } } }[];
          };
        }>(service, user, '{ bookOrders { data { quantity book { title format author { name } } } } }');
        expect(chain.bookOrders.data).to.deep.equal([
          { quantity: 2, book: { title: 'The Dispossessed', format: 'PAPER', author: { name: 'Ursula' } } },
        ]);
        expectError(
          await api.delete(`/api/v1/authors/${author.id}`, { token: admin }),
          409,
          'CONFLICT',
          'Author is still referenced',
          { detail: `id: ${author.id}` },
        );
        // Products are still served, regenerated.
        expectStatus(
          await api.post('/api/v1/products', {
            token: admin,
            json: { ...PRODUCT_BODY, name: 'Walnut desk', price: 19.99 },
          }),
          201,
        );
      } finally {
        expect(await service.stop()).to.equal(0);
      }
    },
  );

  // Week two (issue 22): the resources change by command, on a database that holds rows from before.
  const WEEK_TWO = 'week-two';
  const INVOICE_ENTITY = 'src/domain/invoice/Invoice.ts';
  const CUSTOMER_ENTITY = 'src/domain/customer/Customer.ts';
  let filled: { customer: string; invoices: string[]; product: string } | undefined;

  step('week two: fills a database with a customer, three invoices and a product', async () => {
    const { service, api, admin } = await serve(WEEK_TWO);
    try {
      const customer = dataOf<{ id: string }>(
        await api.post('/api/v1/customers', {
          token: admin,
          json: { name: 'Ada Lovelace', email: 'ada@example.com', tier: 'pro' },
        }),
        201,
      );
      const invoices: string[] = [];
      for (const n of [1, 2, 3]) {
        const body = {
          customer_id: customer.id,
          number: `INV-${n}`,
          total: n,
          amount: `${n}.50`,
          due_at: '2026-05-01T00:00:00Z',
          paid: false,
        };
        invoices.push(dataOf<{ id: string }>(await api.post('/api/v1/invoices', { token: admin, json: body }), 201).id);
      }
      const product = dataOf<{ id: string }>(
        await api.post('/api/v1/products', {
          token: admin,
          json: { ...PRODUCT_BODY, name: 'Walnut desk', price: 19.99 },
        }),
        201,
      );
      filled = { customer: customer.id, invoices, product: product.id };
    } finally {
      expect(await service.stop()).to.equal(0);
    }
  });

  step(
    'week two: refuses a required field without --default (exit 2, nothing written), then adds two invoice fields, removes one, adds a product field',
    async () => {
      const before = copy.read(INVOICE_ENTITY);
      const migrations = () => readdirSync(copy.path(MIGRATIONS_DIR)).sort();
      const migrationsBefore = migrations();
      const refused = await copy.npm('generate', ['field', 'invoice', 'status:enum(draft|sent|paid)']);
      expectExit(refused, 2, 'generate field without --default');
      expect(refused.stderr).to.include('--default status=<value>');
      expect(copy.read(INVOICE_ENTITY)).to.equal(before);
      expect(migrations()).to.deep.equal(migrationsBefore);

      const added = await copy.npm('generate', [
        'field',
        'invoice',
        'status:enum(draft|sent|paid)',
        'paid_at:datetime?',
        '--default',
        'status=draft',
      ]);
      expectExit(added, 0, 'generate field invoice status paid_at');
      expect(pathsIn(added.stdout, 'created')).to.have.length(1);
      expect(pathsIn(added.stdout, 'created')[0]).to.match(STAMPED_MIGRATION('invoices_add_status_paid_at'));
      // The declaration alone (no list names the migration); the tests read the declaration.
      expect(pathsIn(added.stdout, 'changed')).to.deep.equal([INVOICE_ENTITY]);
      // `--default status=draft` is `=draft`: the declaration states the default.
      expect(copy.read(INVOICE_ENTITY)).to.include("status: field.enum(['draft', 'sent', 'paid']).default('draft'),");
      expect(copy.read(INVOICE_ENTITY)).to.include('paidAt: field.datetime().optional(),');

      // A reference: its relation comes with it from the declaration (the nested route stays customer_id's).
      const payer = await copy.npm('generate', ['field', 'invoice', 'payer_id:ref(customer)?']);
      expectExit(payer, 0, 'generate field invoice payer_id');
      expect(pathsIn(payer.stdout, 'changed')).to.deep.equal([INVOICE_ENTITY]);

      const removed = await copy.npm('generate', ['field', 'invoice', '--remove', 'total']);
      expectExit(removed, 0, 'generate field invoice --remove total');
      expect(copy.read(INVOICE_ENTITY)).not.to.match(/\btotal:/);
      const searched = await copy.npm('generate', ['field', 'customer', '--remove', 'name']);
      expectExit(searched, 2, 'generate field customer --remove name (its search field)');

      const product = await copy.npm('generate', [
        'field',
        'product',
        `${PRODUCT_FIELD}:integer(0..)`,
        '--default',
        `${PRODUCT_FIELD}=5`,
      ]);
      expectExit(product, 0, 'generate field product stock');

      const nothing = await copy.npm('generate', ['migration']);
      expectExit(nothing, 0, 'generate migration with nothing to do');
      expect(nothing.stdout).to.include('nothing to do');
      expect(pathsIn(nothing.stdout, 'created')).to.deep.equal([]);
    },
  );

  step('week two: writes the migration of a field added to a declaration by hand (generate migration)', async () => {
    const source = copy.read(CUSTOMER_ENTITY);
    const line = "tier: field.enum(['free', 'pro']),";
    expect(source).to.include(line);
    copy.write(CUSTOMER_ENTITY, source.replace(line, `${line}\n    phone: field.string(1, 30).optional(),`));
    const migrated = await copy.npm('generate', ['migration']);
    expectExit(migrated, 0, 'generate migration');
    expect(pathsIn(migrated.stdout, 'created')).to.have.length(1);
    expect(pathsIn(migrated.stdout, 'created')[0]).to.match(STAMPED_MIGRATION('customers_add_phone'));
    // No list names it; the tests' samples come from the declaration.
    expect(pathsIn(migrated.stdout, 'changed')).not.to.include(MODULE_LIST);
    expect(pathsIn(migrated.stdout, 'changed').filter((path) => path.startsWith('test/'))).to.deep.equal([]);
    const again = await copy.npm('generate', ['migration']);
    expect(again.stdout).to.include('nothing to do');
  });

  step(
    'week two: declares a command on the invoice status (generate command), its method, rule and migration',
    async () => {
      const refused = await copy.npm('generate', [
        'command',
        'invoice',
        'send',
        '--field',
        'number',
        '--from',
        'draft',
        '--to',
        'sent',
      ]);
      expectExit(refused, 2, 'generate command on a field that is not an enum');
      const sent = await copy.npm('generate', [
        'command',
        'invoice',
        'send',
        '--field',
        'status',
        '--from',
        'draft',
        '--to',
        'sent',
      ]);
      expectExit(sent, 0, 'generate command invoice send');
      expect(pathsIn(sent.stdout, 'created')[0]).to.match(STAMPED_MIGRATION('invoices_send_command'));
      expect(pathsIn(sent.stdout, 'changed')).to.deep.equal([INVOICE_ENTITY, POLICY].sort());
      expect(copy.read(INVOICE_ENTITY)).to.include("send: { field: 'status', from: ['draft'], to: 'sent' },");
      expect(copy.read(INVOICE_ENTITY)).to.include("this.requireState('send');");
      expect(copy.read(POLICY)).to.include('p, moderator, /api/v1/invoices/{id}/send, POST\n');
    },
  );

  step('week two: passes lint, the type check, the layer rule and the changed resources’ tests', async () => {
    expectExit(await copy.npm('lint', [], {}, 900_000), 0, 'npm run lint');
    expectExit(await copy.npm('typecheck', [], {}, 900_000), 0, 'npm run typecheck');
    const tests = [
      // The changed resources' suites, read from their declarations as they now are.
      'test/resources/customers.test.ts',
      'test/resources/invoices.test.ts',
      'test/resources/products.test.ts',
      'test/domain/product',
      'test/tools/generate/golden.domain.test.ts',
      'test/tools/generate/golden.tests.test.ts',
      // The typed client's types, built from the document as it now is, type every route of it.
      'test/tools/openapiTypes.test.ts',
    ];
    const postgres = externalService('SVC_TEST_POSTGRES_URL');
    const database = postgres === undefined ? undefined : await ScratchPostgres.create(postgres);
    try {
      const env: Record<string, string> = database ? { SVC_TEST_POSTGRES_URL: database.url } : {};
      const result = await copy.node('node_modules/mocha/bin/mocha.js', ['--recursive', ...tests], env, 900_000);
      expectExit(result, 0, 'mocha on the changed resources’ tests');
      expect(result.stdout).to.match(/\d+ passing/);
      expect(result.stdout).not.to.match(/\d+ failing/);
    } finally {
      await database?.drop();
    }
  });

  step(
    'week two: restarted on the same database, serves the rows from before (default, null) and takes the new fields over REST, GraphQL and the document',
    async () => {
      if (!filled) throw new Error('no rows from before');
      const { service, api, admin, user } = await serve(WEEK_TWO, true);
      try {
        const listed = dataOf<Record<string, unknown>[]>(
          await api.get('/api/v1/invoices?sort=number&order=asc', { token: user }),
        );
        expect(listed.map((i) => [i.id, i.number, i.status, i.paid_at, i.amount])).to.deep.equal(
          filled.invoices.map((id, n) => [id, `INV-${n + 1}`, 'draft', null, `${n + 1}.50`]),
        );
        for (const invoice of listed) expect(invoice).not.to.have.property('total');
        const body = {
          customer_id: filled.customer,
          number: 'INV-4',
          amount: '4.00',
          due_at: '2026-05-01T00:00:00Z',
          paid: true,
          status: 'paid',
          paid_at: '2026-05-02T00:00:00Z',
        };
        const createdInvoice = dataOf<Record<string, unknown> & { id: string }>(
          await api.post('/api/v1/invoices', { token: admin, json: body }),
          201,
        );
        expect(createdInvoice).to.deep.include({ status: 'paid', paid_at: '2026-05-02T00:00:00.000Z' });
        expectError(
          await api.post('/api/v1/invoices', { token: admin, json: { ...body, status: 'lost' } }),
          400,
          'VALIDATION_ERROR',
          'validation failed',
          { fields: [{ field: 'status', message: 'must be one of draft, sent, paid' }] },
        );
        const sent = await api.put(`/api/v1/invoices/${filled.invoices[1]}`, {
          token: admin,
          json: { status: 'sent' },
          headers: { 'If-Match': '"1"' },
        });
        expect(dataOf<Record<string, unknown>>(sent)).to.deep.include({ status: 'sent', paid_at: null });
        const byStatus = dataOf<{ number: string }[]>(
          await api.get('/api/v1/invoices?sort=status&order=desc', { token: user }),
        );
        expect(byStatus.map((i) => i.number).slice(0, 2)).to.deep.equal(['INV-2', 'INV-4']);
        const byPaidAt = dataOf<{ number: string }[]>(
          await api.get(`/api/v1/customers/${filled.customer}/invoices?sort=paid_at&order=asc`, { token: user }),
        );
        expect(byPaidAt.map((i) => i.number)[0]).to.equal('INV-4');

        // The customer's field added by hand: null on the row from before, taken on update.
        const customer = dataOf<Record<string, unknown>>(
          await api.get(`/api/v1/customers/${filled.customer}`, { token: user }),
        );
        expect(customer).to.deep.include({ name: 'Ada Lovelace', phone: null });
        // The product's new field: the default on the row from before.
        const product = dataOf<Record<string, unknown>>(
          await api.get(`/api/v1/products/${filled.product}`, { token: user }),
        );
        expect(product).to.deep.include({ name: 'Walnut desk', [PRODUCT_FIELD]: 5 });

        // GraphQL: the enum, the optional time, the removed field gone from the schema.
        const gqlInvoices = await gql<{
          invoices: { data: { number: string; status: string; paidAt: string | null }[] };
        }>(
          service,
          user,
          '{ invoices(sort: { sortByField: "number", sortOrientation: ASC }) { data { number status paidAt } } }',
        );
        expect(gqlInvoices.invoices.data.map((i) => [i.number, i.status])).to.deep.equal([
          ['INV-1', 'DRAFT'],
          ['INV-2', 'SENT'],
          ['INV-3', 'DRAFT'],
          ['INV-4', 'PAID'],
        ]);
        // The reference added later: null on the rows from before, set on update, a filter and a relation.
        const paidBy = await api.put(`/api/v1/invoices/${filled.invoices[2]}`, {
          token: admin,
          json: { payer_id: filled.customer },
          headers: { 'If-Match': '"1"' },
        });
        expect(dataOf<Record<string, unknown>>(paidBy)).to.deep.include({ payer_id: filled.customer });
        const byPayer = dataOf<{ number: string }[]>(
          await api.get(`/api/v1/invoices?payer_id=${filled.customer}`, { token: user }),
        );
        expect(byPayer.map((i) => i.number)).to.deep.equal(['INV-3']);
        const payers = await gql<{ invoices: { data: { number: string; payer: { name: string } | null }[] } }>(
          service,
          user,
          '{ invoices(sort: { sortByField: "number", sortOrientation: ASC }) { data { number payer { name } } } }',
        );
        expect(payers.invoices.data.map((i) => i.payer?.name ?? null)).to.deep.equal([
          null,
          null,
          'Ada Lovelace',
          null,
        ]);
        const gone = await graphql(service.url, '{ invoices { data { total } } }', { token: user });
        expect(gone.body.errors?.[0]?.message, gone.text).to.match(/Cannot query field "total"/);

        // The document says the same.
        const document = (await api.get('/api/v1/openapi.json')).body as OpenApiDocument;
        const invoice = document.components.schemas.Invoice?.properties ?? {};
        expect(invoice).to.have.property('status');
        expect(invoice.status).to.deep.include({ enum: ['draft', 'sent', 'paid'] });
        expect(invoice.paid_at?.type).to.deep.equal(['string', 'null']);
        expect(invoice).not.to.have.property('total');
        expect(document.components.schemas.Customer?.properties).to.have.property('phone');
      } finally {
        expect(await service.stop()).to.equal(0);
      }
    },
  );

  step('changed no committed file of more than 1,000 lines with any of its generator commands', async () => {
    const listed = await run(source, 'git', ['ls-files', '-z']);
    expectExit(listed, 0, 'git ls-files');
    const large = listed.stdout
      .split('\0')
      .filter((path) => path !== '' && copy.exists(path))
      .filter((path) => copy.readSource(path).split('\n').length > 1000);
    expect(large, 'the large committed files').to.include('package-lock.json');
    expect(large.filter((path) => copy.read(path) !== copy.readSource(path))).to.deep.equal([]);
  });
});

/**
 * A bookshop built by generator commands alone, in a scratch copy of its own: authors with a unique
 * optional e-mail, books (a reference, a unique ISBN, a decimal, an optional date, a default) and
 * book orders (owned, a read-only status with a default) moved by two commands (one for the owner,
 * one for staff only), then a field added to books. After each command the copy passes the type
 * check and lint on what it wrote, untouched; after the last, the three resources' tests pass, on
 * SQLite and (with SVC_TEST_POSTGRES_URL) PostgreSQL.
 */
describe('generate: a bookshop in a scratch copy, green after every command', function () {
  this.timeout(1_200_000);
  let copy: ScratchCopy;
  const tests = ['authors', 'books', 'bookOrders'].map((plural) => `test/resources/${plural}.test.ts`);
  const COMMANDS: readonly (readonly string[])[] = [
    ['resource', 'author', 'name:string', 'email:email?+unique', '--search', 'name'],
    [
      'resource',
      'book',
      'author_id:ref(author)',
      'title:string',
      'isbn:string(10..17)+unique',
      'price:decimal(12,2)(>0)',
      'published_on:date?',
      'stock:integer(0..)=0',
      '--search',
      'title',
    ],
    [
      'resource',
      'book_order',
      'book_id:ref(book)',
      'quantity:integer(1..100)',
      'ship_to:string',
      'status:enum(placed|paid|shipped)+readonly=placed',
      '--search',
      'ship_to',
      '--owned',
    ],
    ['command', 'book_order', 'pay', '--field', 'status', '--from', 'placed', '--to', 'paid'],
    ['command', 'book_order', 'ship', '--field', 'status', '--from', 'paid', '--to', 'shipped', '--staff-only'],
    ['field', 'book', 'subtitle:string?'],
    ['field', 'book', 'cover:file(image/png|image/jpeg,2MB)?'],
  ];
  /** The first command that failed: the later ones build on it. */
  let failed: string | undefined;

  before(async function () {
    this.timeout(300_000);
    copy = await ScratchCopy.of(process.cwd());
  });
  after(() => copy?.dispose());

  for (const args of COMMANDS) {
    const title = `generate ${args.join(' ')}: the type check and lint on what it wrote pass`;
    it(title, async () => {
      if (failed !== undefined) throw new Error(`not run: "${failed}" failed`);
      try {
        const result = await copy.npm('generate', args);
        expectExit(result, 0, `generate ${args.join(' ')}`);
        const written = [...pathsIn(result.stdout, 'created'), ...pathsIn(result.stdout, 'changed')].filter((path) =>
          path.endsWith('.ts'),
        );
        expect(written, 'the TypeScript files it wrote').not.to.deep.equal([]);
        // `npm run typecheck` in two: the typed client's types first, then the type check beside lint.
        expectExit(await copy.npm('openapi:types'), 0, 'npm run openapi:types');
        const [typecheck, lint] = await Promise.all([
          copy.node('node_modules/typescript/bin/tsc', ['-p', 'tsconfig.json', '--noEmit'], {}, 900_000),
          copy.node('node_modules/eslint/bin/eslint.js', ['--max-warnings', '0', ...written]),
        ]);
        expectExit(typecheck, 0, 'tsc (the type check)');
        expectExit(lint, 0, `eslint ${written.join(' ')}`);
      } catch (error) {
        failed = title;
        throw error;
      }
    });
  }

  it("then passes the three resources' tests, on PostgreSQL too", async () => {
    if (failed !== undefined) throw new Error(`not run: "${failed}" failed`);
    for (const path of tests) expect(copy.exists(path), path).to.equal(true);
    const postgres = externalService('SVC_TEST_POSTGRES_URL');
    const database = postgres === undefined ? undefined : await ScratchPostgres.create(postgres);
    try {
      const env: Record<string, string> = database ? { SVC_TEST_POSTGRES_URL: database.url } : {};
      const result = await copy.node('node_modules/mocha/bin/mocha.js', tests, env, 900_000);
      expectExit(result, 0, 'mocha on the bookshop’s tests');
      expect(result.stdout).to.match(/\d+ passing/);
      if (database) expect(result.stdout).to.include('on PostgreSQL');
    } finally {
      await database?.drop();
    }
  });
});
