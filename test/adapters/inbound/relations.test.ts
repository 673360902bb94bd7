import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { expect } from 'chai';
import { graphql, parse, validate, type GraphQLSchema } from 'graphql';
import pino from 'pino';
import { resourceGraphQL } from '../../../src/adapters/inbound/graphql/resourceGraphQL.js';
import { graphqlRoutes } from '../../../src/adapters/inbound/graphql/routes.js';
import { queryLimits } from '../../../src/adapters/inbound/graphql/limits.js';
import type { GraphQLContext } from '../../../src/adapters/inbound/graphql/resolverKit.js';
import { createSchema } from '../../../src/adapters/inbound/graphql/schema.js';
import { operationsOf } from '../../../src/adapters/inbound/http/resourceOperations.js';
import { resourceRoutes } from '../../../src/adapters/inbound/http/resourceRoutes.js';
import type { ParentsOf, ResourceUseCases } from '../../../src/adapters/inbound/resources.js';
import { InMemoryResourceRepository } from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import type { Database } from '../../../src/adapters/outbound/mikroorm/database.js';
import { createResourceTable, tableOf } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { GetMany, ListByReference } from '../../../src/application/resources/related.js';
import { ConflictError, NotFoundError } from '../../../src/domain/shared/DomainError.js';
import type { ListQuery, Page } from '../../../src/domain/shared/Page.js';
import { declareResource, entityOf, field, type SortFieldOf } from '../../../src/domain/shared/resource.js';
import { connectDatabase } from '../../support/database.js';
import { startHttpApp, type RunningApp } from '../../support/httpApp.js';

const CUSTOMER = declareResource({
  name: 'customer',
  plural: 'customers',
  fields: { name: field.string(1, 80) },
  search: 'name',
});
const INVOICE = declareResource({
  name: 'invoice',
  plural: 'invoices',
  fields: {
    customerId: field.ref('customer', 'customers'),
    number: field.string(1, 40),
    amount: field.decimal(12, 2),
    // An optional reference: its GraphQL field is nullable.
    payerId: field.ref('customer', 'customers').optional(),
  },
  search: 'number',
});
class Customer extends entityOf(CUSTOMER) {}
class Invoice extends entityOf(INVOICE) {}
type CustomerFields = typeof CUSTOMER.fields;
type InvoiceFields = typeof INVOICE.fields;

interface Rows<E, F extends string> {
  add(row: E): Promise<void>;
  findById(id: string): Promise<E | undefined>;
  findByIds(ids: readonly string[]): Promise<readonly E[]>;
  list(query: ListQuery<F>): Promise<Page<E>>;
  listByReference(field: string, ids: readonly string[], query: ListQuery<F>): Promise<ReadonlyMap<string, Page<E>>>;
  update(id: string, change: (current: E) => E): Promise<E | undefined>;
}

/** How many rows the create use case has made: each new row's id is numbered after them. */
let created = 0;

/** A declared entity class: makes a checked new entity. */
interface Creates<E> {
  create(input: Record<string, unknown>, now: Date): E;
}

/** The use cases the relation fields and the writes below drive (the rest are not called here). */
function useCasesOf<E, F extends CustomerFields | InvoiceFields>(
  rows: Rows<E, SortFieldOf<F>>,
  human: string,
  entity: typeof Customer | typeof Invoice,
) {
  return {
    get: {
      execute: async ({ id }: { id: string }) => {
        const row = await rows.findById(id);
        if (!row) throw new NotFoundError(human, id);
        return row;
      },
    },
    list: { execute: (query: ListQuery<SortFieldOf<F>>) => rows.list(query) },
    // As the generated use cases do: the entity checks its fields, the store its references.
    create: {
      execute: async (input: Record<string, unknown>) => {
        const row = (entity as unknown as Creates<E>).create({ ...input, id: id(9, (created += 1)) }, T0);
        await rows.add(row);
        return row;
      },
    },
    update: {
      execute: async ({ id: rowId, changes }: { id: string; changes: Record<string, unknown> }) => {
        const row = await rows.update(rowId, (current) =>
          (current as unknown as { update(changes: unknown, now: Date): E }).update(changes, T0),
        );
        if (!row) throw new NotFoundError(human, rowId);
        return row;
      },
    },
    getMany: new GetMany(rows),
    listByReference: new ListByReference(rows),
  } as unknown as ResourceUseCases<E & Customer & Invoice, F>;
}

const inbound = (declaration: typeof CUSTOMER | typeof INVOICE) => ({
  declaration: declaration as never,
  notFound: (id: string) => new NotFoundError(declaration.name, id),
});

function schemaOver(customers: Rows<Customer, string>, invoices: Rows<Invoice, string>): GraphQLSchema {
  const customerUseCases = useCasesOf<Customer, CustomerFields>(customers, 'Customer', Customer);
  const parents = {
    customerId: { resource: inbound(CUSTOMER), useCases: customerUseCases },
    payerId: { resource: inbound(CUSTOMER), useCases: customerUseCases },
  } as ParentsOf<InvoiceFields>;
  return createSchema([
    resourceGraphQL(inbound(CUSTOMER), customerUseCases as never),
    resourceGraphQL(
      inbound(INVOICE),
      useCasesOf<Invoice, InvoiceFields>(invoices, 'Invoice', Invoice) as never,
      parents,
    ),
  ]);
}

/** A caller the policy lets read everything but `denied` (a policy path). */
function contextOf(denied?: string): GraphQLContext {
  return {
    bearer: 'token',
    bearerProblem: undefined,
    log: pino({ level: 'silent' }),
    access: {
      authenticate: { execute: async () => ({ sub: 'u1', role: 'user' }) } as never,
      policy: {
        enforce: async (_role: string, path: string) => path !== denied,
        scopeOf: async (_role: string, path: string) => (path !== denied ? 'all' : undefined),
      } as never,
    },
  };
}

async function run(schema: GraphQLSchema, source: string, context = contextOf()) {
  const result = await graphql({ schema, source, contextValue: context });
  if (result.errors) throw new Error(result.errors.map((e) => e.message).join('; '));
  return result.data as Record<string, { data: Record<string, unknown>[]; pagination: { totalRecords: number } }>;
}

const T0 = new Date('2026-01-01T00:00:00Z');
const id = (kind: number, n: number) =>
  `00000000-0000-4000-8000-${(kind * 0x10000 + n).toString(16).padStart(12, '0')}`;

/** 20 customers, 60 invoices: invoice n belongs to customer n % 20, and customer n % 7 pays it (or nobody). */
async function fill(customers: Rows<Customer, string>, invoices: Rows<Invoice, string>) {
  for (let n = 0; n < 20; n++) await customers.add(Customer.create({ id: id(1, n), name: `Customer ${n}` }, T0));
  for (let n = 0; n < 60; n++) {
    const at = new Date(T0.getTime() + n * 1000);
    await invoices.add(
      Invoice.create(
        {
          id: id(2, n),
          customerId: id(1, n % 20),
          number: `INV-${String(n).padStart(3, '0')}`,
          amount: `${n}.50`,
          payerId: n % 3 === 0 ? null : id(1, n % 7),
        },
        at,
      ),
    );
  }
}

const INVOICES_WITH_CUSTOMERS = (n: number) =>
  `{ invoices(pagination: { limit: ${n} }, sort: { sortByField: "number", sortOrientation: ASC }) {
      data { number customer { id name } payer { name } } } }`;
const CUSTOMERS_WITH_INVOICES = (n: number) =>
  `{ customers(pagination: { limit: ${n} }, sort: { sortByField: "name", sortOrientation: ASC }) {
      data { id name invoices(pagination: { limit: 2 }, sort: { sortByField: "amount", sortOrientation: DESC }) {
        data { number amount } pagination { totalRecords } } } } }`;

function relationBehaviour(
  open: () => Promise<{ customers: Rows<Customer, string>; invoices: Rows<Invoice, string> }>,
) {
  it('Invoice.customer and Invoice.payer answer the referenced rows (null for an empty optional reference)', async () => {
    const { customers, invoices } = await open();
    await fill(customers, invoices);
    const data = await run(schemaOver(customers, invoices), INVOICES_WITH_CUSTOMERS(10));
    const rows = data.invoices!.data;
    expect(rows).to.have.length(10);
    for (const row of rows) {
      const n = Number(String(row.number).slice(4));
      expect(row.customer).to.deep.equal({ id: id(1, n % 20), name: `Customer ${n % 20}` });
      expect(row.payer).to.deep.equal(n % 3 === 0 ? null : { name: `Customer ${n % 7}` });
    }
  });

  it("Customer.invoices(...) answers each customer's own page, with the list's arguments and totals", async () => {
    const { customers, invoices } = await open();
    await fill(customers, invoices);
    const data = await run(schemaOver(customers, invoices), CUSTOMERS_WITH_INVOICES(20));
    for (const row of data.customers!.data) {
      const own = await invoices.list({
        page: 1,
        perPage: 2,
        sort: 'amount',
        order: 'desc',
        filters: { customer_id: row.id as string },
      });
      const page = row.invoices as { data: { number: string; amount: string }[]; pagination: { totalRecords: number } };
      expect(page.pagination.totalRecords).to.equal(3);
      expect(page.data).to.deep.equal(own.items.map((i) => ({ number: i.number, amount: i.amount })));
    }
  });

  it("Customer.invoices(...) keeps the list's other filters and search", async () => {
    const { customers, invoices } = await open();
    await fill(customers, invoices);
    const payer = id(1, 2);
    const data = await run(
      schemaOver(customers, invoices),
      `{ customers(pagination: { limit: 20 }) { data { id invoices(payerId: "${payer}", search: "INV-0") {
          data { number } pagination { totalRecords } } } } }`,
    );
    let seen = 0;
    for (const row of data.customers!.data) {
      const own = await invoices.list({
        page: 1,
        perPage: 20,
        sort: 'created_at',
        order: 'desc',
        q: 'INV-0',
        filters: { customer_id: row.id as string, payer_id: payer },
      });
      const page = row.invoices as { data: { number: string }[]; pagination: { totalRecords: number } };
      expect(page.pagination.totalRecords, String(row.id)).to.equal(own.total);
      expect(page.data.map((i) => i.number)).to.deep.equal(own.items.map((i) => i.number));
      seen += own.total;
    }
    expect(seen).to.be.greaterThan(0);
    expect(seen).to.be.lessThan(60);
  });

  it('a reference naming no row: a 422 response object naming its GraphQL field, on create and update', async () => {
    const { customers, invoices } = await open();
    await fill(customers, invoices);
    const schema = schemaOver(customers, invoices);
    const unknown = id(1, 999);
    const rejected = (fieldName: string) => ({
      status: 422,
      message: 'validation failed',
      errors: [{ fieldName, message: 'must name an existing customer' }],
      data: null,
    });
    const response = 'status message errors { fieldName message } data { id }';
    const create = await run(
      schema,
      `mutation { createInvoice(input: { customerId: "${unknown}", number: "N-1", amount: "1.00" }) { ${response} } }`,
    );
    expect(create.createInvoice).to.deep.equal(rejected('customerId'));
    const payer = await run(
      schema,
      `mutation { createInvoice(input: {
        customerId: "${id(1, 1)}", payerId: "${unknown}", number: "N-2", amount: "1.00" }) { ${response} } }`,
    );
    expect(payer.createInvoice).to.deep.equal(rejected('payerId'));
    const update = await run(
      schema,
      `mutation { updateInvoice(id: "${id(2, 1)}", input: { customerId: "${unknown}" }) { ${response} } }`,
    );
    expect(update.updateInvoice).to.deep.equal(rejected('customerId'));
    expect((await invoices.findById(id(2, 1)))?.customerId).to.equal(id(1, 1));
  });

  it('a number literal for a decimal field is read by its text: 1e300000000 is a 422 at once', async () => {
    const { customers, invoices } = await open();
    await fill(customers, invoices);
    const schema = schemaOver(customers, invoices);
    const create = (amount: string) =>
      `mutation { createInvoice(input: { customerId: "${id(1, 1)}", number: "N-3", amount: ${amount} }) {
        status errors { fieldName message } data { amount } } }`;
    const rejected = {
      status: 422,
      errors: [{ fieldName: 'amount', message: 'must be a decimal of at most 10 digits before the point and 2 after' }],
      data: null,
    };
    for (const amount of [
      '1e300000000',
      '-1e300000000',
      '1e-300000000',
      '0.10000000000000001',
      '12345678901234567890',
    ]) {
      // That none is expanded to its digits is held where the text is read (test/domain/shared/decimal.test.ts);
      // here, that GraphQL refuses each with the field's rule, not an error of its own.
      const answered = await run(schema, create(amount));
      expect(answered.createInvoice, amount).to.deep.equal(rejected);
    }
    for (const [amount, stored] of [
      ['1.25e1', '12.50'],
      ['7', '7.00'],
      ['-0', '0.00'],
    ]) {
      const answered = await run(schema, create(amount!));
      expect(answered.createInvoice, amount).to.deep.include({ status: 201, data: { amount: stored } });
    }
  });

  it('each relation field is checked as the REST call it mirrors', async () => {
    const { customers, invoices } = await open();
    await fill(customers, invoices);
    const schema = schemaOver(customers, invoices);
    const denied = await graphql({
      schema,
      source: INVOICES_WITH_CUSTOMERS(2),
      contextValue: contextOf('/api/v1/customers/{id}'),
    });
    expect(denied.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    const nested = await graphql({
      schema,
      source: CUSTOMERS_WITH_INVOICES(2),
      contextValue: contextOf('/api/v1/customers/{id}/invoices'),
    });
    expect(nested.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    expect(nested.errors?.[0]?.path).to.deep.equal(['customers', 'data', 0, 'invoices']);
    // Searching through the relation is checked as the top-level search is.
    const searching = await graphql({
      schema,
      source: '{ customers { data { invoices(search: "INV") { data { number } } } } }',
      contextValue: contextOf('/api/v1/invoices/search'),
    });
    expect(searching.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    const listing = await graphql({
      schema,
      source: '{ customers { data { invoices { data { number } } } } }',
      contextValue: contextOf('/api/v1/invoices/search'),
    });
    expect(listing.errors).to.equal(undefined);
  });
}

/** Customers and invoices in memory, invoices referring to customers. */
function memoryStores() {
  const customers = new InMemoryResourceRepository<Customer, ReturnType<Customer['toProps']>, string>({
    fromRow: (props) => Customer.restore(props),
    toRow: (c) => c.toProps(),
    declaration: CUSTOMER,
    stillReferenced: (cid) => new ConflictError('Customer is still referenced', cid),
  });
  const invoices = new InMemoryResourceRepository<Invoice, ReturnType<Invoice['toProps']>, string>({
    fromRow: (props) => Invoice.restore(props),
    toRow: (i) => i.toProps(),
    declaration: INVOICE,
    references: {
      customerId: { repository: customers, target: 'customer' },
      payerId: { repository: customers, target: 'customer' },
    },
    stillReferenced: (iid) => new ConflictError('Invoice is still referenced', iid),
  });
  return { customers, invoices };
}

describe('relations of a declared resource (ref fields)', () => {
  describe('in memory', () => {
    relationBehaviour(async () => memoryStores());
  });

  describe('on SQLite, counting statements', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-relations-'));
    let database: Database;
    let customers: SqlResourceRepository<Customer, never, string>;
    let invoices: SqlResourceRepository<Invoice, never, string>;
    let statements = 0;
    before(async () => {
      database = await connectDatabase(`sqlite:${join(dir, 'relations.sqlite')}`);
      const CUSTOMERS = tableOf(Customer, (cid) => new ConflictError('Customer is still referenced', cid));
      const INVOICES = tableOf(Invoice, (iid) => new ConflictError('Invoice is still referenced', iid));
      const knex = (database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
      for (const table of [CUSTOMERS, INVOICES])
        for (const statement of createResourceTable(knex, table)) await knex.raw(statement);
      customers = new SqlResourceRepository(database, CUSTOMERS as never);
      invoices = new SqlResourceRepository(database, INVOICES as never);
      // Every statement the repositories send goes through the executor: count them there.
      for (const method of ['one', 'all', 'run'] as const) {
        const original = database.sql[method].bind(database.sql) as (...args: unknown[]) => Promise<unknown>;
        (database.sql as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          statements += 1;
          return original(...args);
        };
      }
      await fill(customers as never, invoices as never);
    });
    after(async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const counted = async (source: string): Promise<number> => {
      statements = 0;
      await run(schemaOver(customers as never, invoices as never), source);
      return statements;
    };

    it('a page of 5 invoices and a page of 50, each with customer { name }, cost the same statements', async () => {
      const five = await counted(INVOICES_WITH_CUSTOMERS(5));
      const fifty = await counted(INVOICES_WITH_CUSTOMERS(50));
      expect(fifty).to.equal(five);
      // The list's page (its total counted in the same statement), then one read of customers for
      // both relation fields (customer, payer).
      expect(five).to.equal(2);
    });

    it('a page of 5 customers and a page of 20, each with invoices(...), cost the same statements', async () => {
      const five = await counted(CUSTOMERS_WITH_INVOICES(5));
      const twenty = await counted(CUSTOMERS_WITH_INVOICES(20));
      expect(twenty).to.equal(five);
      // The list's page (with its total), then the nested pages' counts and rows.
      expect(five).to.equal(3);
    });

    relationBehaviour(async () => {
      for (const table of ['invoices', 'customers']) await database.sql.run(`delete from ${table}`);
      return { customers: customers as never, invoices: invoices as never };
    });
  });

  it('the relation fields count toward the depth limit', () => {
    const schema = schemaOver({} as never, {} as never);
    const deep = `{ customers { data { invoices { data { customer { invoices { data { customer { invoices { data { number } } } } } } } } } } }`;
    const errors = validate(schema, parse(deep), [queryLimits({ maxDepth: 8, maxFields: 200, maxAliases: 15 })]);
    expect(errors.map((e) => e.message)).to.deep.equal(['query depth 11 exceeds the limit of 8']);
  });

  it('the nested REST list answers 403, never 404, to a role that may list invoices but not read customers', async () => {
    const { customers, invoices } = memoryStores();
    await fill(customers as never, invoices as never);
    const customerUseCases = useCasesOf<Customer, CustomerFields>(customers as never, 'Customer', Customer);
    // `reader` may read both; `lister` may list invoices (the nested route's rules) but not read customers.
    const allowed: Record<string, string[]> = {
      reader: ['/api/v1/customers/{id}/invoices', '/api/v1/customers/{id}'],
      lister: ['/api/v1/customers/{id}/invoices'],
    };
    const guards = {
      authenticate: {
        execute: async ({ accessToken }: { accessToken: string }) => ({ sub: accessToken, role: accessToken }),
      },
      policy: {
        enforce: async (role: string, path: string) => allowed[role]?.includes(path) ?? false,
        scopeOf: async (role: string, path: string) => (allowed[role]?.includes(path) ? ('all' as const) : undefined),
      },
    };
    const app = await startHttpApp({
      routes: [
        resourceRoutes(
          inbound(INVOICE),
          { ...useCasesOf<Invoice, InvoiceFields>(invoices as never, 'Invoice', Invoice), ...guards } as never,
          {
            customerId: { resource: inbound(CUSTOMER), useCases: customerUseCases },
            payerId: { resource: inbound(CUSTOMER), useCases: customerUseCases },
          } as ParentsOf<InvoiceFields>,
        ),
      ],
    });
    try {
      const get = async (role: string, customer: string) =>
        (
          await fetch(`${app.url}/api/v1/customers/${customer}/invoices`, {
            headers: { authorization: `Bearer ${role}` },
          })
        ).status;
      const unknown = id(1, 999);
      expect(await get('reader', id(1, 3))).to.equal(200);
      expect(await get('reader', unknown)).to.equal(404);
      expect(await get('lister', id(1, 3))).to.equal(403);
      expect(await get('lister', unknown)).to.equal(403);
    } finally {
      await app.close();
    }
  });

  describe('decimal and reference fields over HTTP: the request text is read, in REST and GraphQL alike', () => {
    const MONEY = 'must be a decimal of at most 10 digits before the point and 2 after';
    const LONG = ['0.10000000000000001', '1.0000000000000001', '12345678901234567890', '1e400', '1e300000000'];
    let app: RunningApp;
    let invoices: ReturnType<typeof memoryStores>['invoices'];
    before(async () => {
      const stores = memoryStores();
      invoices = stores.invoices;
      await fill(stores.customers as never, stores.invoices as never);
      const customerUseCases = useCasesOf<Customer, CustomerFields>(stores.customers as never, 'Customer', Customer);
      const invoiceUseCases = useCasesOf<Invoice, InvoiceFields>(stores.invoices as never, 'Invoice', Invoice);
      const parents = {
        customerId: { resource: inbound(CUSTOMER), useCases: customerUseCases },
        payerId: { resource: inbound(CUSTOMER), useCases: customerUseCases },
      } as ParentsOf<InvoiceFields>;
      const access = {
        authenticate: { execute: async () => ({ userId: 'u1', role: 'admin', sessionId: 's1' }) },
        policy: { enforce: async () => true, scopeOf: async () => 'all' as const },
      };
      const fragments = [
        resourceGraphQL(inbound(CUSTOMER), customerUseCases as never),
        resourceGraphQL(inbound(INVOICE), invoiceUseCases as never, parents),
      ];
      const options = {
        generalRoute: '/graphql',
        playgroundRoute: '/graphql-playground',
        playground: false,
        introspection: true,
        maxDepth: 15,
        maxTokens: 5000,
        maxCost: 10_000,
      };
      app = await startHttpApp({
        routes: [
          resourceRoutes(inbound(INVOICE), { ...invoiceUseCases, ...access } as never, parents),
          graphqlRoutes(fragments, access as never, options),
        ],
      });
    });
    after(async () => app.close());

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers' shapes are what is tested
    type Answer = Record<string, any>;
    /** One request with a JSON body given as text, exactly as written. */
    const send = async (method: 'POST' | 'PUT', path: string, text: string) => {
      const response = await fetch(`${app.url}${path}`, {
        method,
        headers: { authorization: 'Bearer t', 'content-type': 'application/json', accept: 'application/json' },
        body: text,
      });
      return { status: response.status, body: (await response.json()) as Answer };
    };
    const invoiceText = (amount: string, customer = id(1, 1)) =>
      `{"customer_id": "${customer}", "number": "N-1", "amount": ${amount}}`;

    it('REST: a JSON number with more digits than a double keeps, or than p allows, is a 400 on amount', async () => {
      const refused = { code: 'VALIDATION_ERROR', fields: [{ field: 'amount', message: MONEY }] };
      for (const amount of LONG) {
        const created = await send('POST', '/api/v1/invoices', invoiceText(amount));
        expect(created.status, amount).to.equal(400);
        expect(created.body.error, amount).to.deep.include(refused);
        const updated = await send('PUT', `/api/v1/invoices/${id(2, 1)}`, `{"amount": ${amount}}`);
        expect(updated.status, amount).to.equal(400);
        expect(updated.body.error, amount).to.deep.include(refused);
      }
      const text = await send('POST', '/api/v1/invoices', invoiceText('"1e300000000"'));
      expect(text.body.error).to.deep.include(refused);
      expect((await invoices.findById(id(2, 1)))?.amount).to.equal('1.50');
      for (const [amount, stored] of [
        ['1.25e1', '12.50'],
        ['0.10000000000000000', '0.10'],
        ['-0', '0.00'],
        ['9999999999.99', '9999999999.99'],
      ]) {
        const created = await send('POST', '/api/v1/invoices', invoiceText(amount!));
        expect(created.status, amount).to.equal(201);
        expect(created.body.data.amount, amount).to.equal(stored);
      }
    });

    it('REST: a reference naming no row is 400 VALIDATION_ERROR on customer_id', async () => {
      const created = await send('POST', '/api/v1/invoices', invoiceText('"1.00"', id(1, 999)));
      expect(created.status).to.equal(400);
      expect(created.body.error).to.deep.include({
        code: 'VALIDATION_ERROR',
        fields: [{ field: 'customer_id', message: 'must name an existing customer' }],
      });
    });

    it('GraphQL: a variable given as a JSON number is read by its text, in an input or on its own', async () => {
      const inInput = (amount: string) =>
        JSON.stringify({
          query: `mutation Create($input: CreateInvoiceInput!) { createInvoice(input: $input) {
            status errors { fieldName message } data { amount } } }`,
        }).slice(0, -1) +
        `, "variables": {"input": {"customerId": "${id(1, 1)}", "number": "N-1", "amount": ${amount}}}}`;
      const alone = (amount: string) =>
        JSON.stringify({
          query: `mutation Create($amount: Decimal!) {
            createInvoice(input: { customerId: "${id(1, 1)}", number: "N-1", amount: $amount }) {
              status errors { fieldName message } data { amount } } }`,
        }).slice(0, -1) + `, "variables": {"amount": ${amount}}}`;
      const rejected = { status: 422, errors: [{ fieldName: 'amount', message: MONEY }], data: null };
      for (const document of [inInput, alone]) {
        for (const amount of LONG) {
          const answered = await send('POST', '/graphql', document(amount));
          expect(answered.body, amount).to.deep.equal({ data: { createInvoice: rejected } });
        }
        const exact = await send('POST', '/graphql', document('1.25e1'));
        expect(exact.body.data.createInvoice).to.deep.include({ status: 201, data: { amount: '12.50' } });
      }
    });

    it('GraphQL: a reference naming no row is a 422 response object naming customerId, as REST words it', async () => {
      const answered = await send(
        'POST',
        '/graphql',
        JSON.stringify({
          query: `mutation { createInvoice(input: { customerId: "${id(1, 999)}", number: "N-1", amount: "1.00" }) {
            status message errors { fieldName message } data { id } } }`,
        }),
      );
      expect(answered.body).to.deep.equal({
        data: {
          createInvoice: {
            status: 422,
            message: 'validation failed',
            errors: [{ fieldName: 'customerId', message: 'must name an existing customer' }],
            data: null,
          },
        },
      });
    });
  });

  it('one nested list per referenced resource (by its customer_id, not payer_id), in the REST document', () => {
    const ops = operationsOf(INVOICE);
    const nested = Object.values(ops).filter((op) => op.path.startsWith('/api/v1/customers/'));
    expect(nested.map((op) => [op.id, op.method, op.path])).to.deep.equal([
      ['listCustomerInvoices', 'GET', '/api/v1/customers/:id/invoices'],
    ]);
  });
});
