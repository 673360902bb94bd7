import type { AbstractSqlConnection } from '@mikro-orm/knex';
import type { GraphQLSchema } from 'graphql';
import { resourceGraphQL, resourceTypeDefs } from '../../src/adapters/inbound/graphql/resourceGraphQL.js';
import type { GraphQLAccess, GraphQLFragment } from '../../src/adapters/inbound/graphql/resolverKit.js';
import { createSchema } from '../../src/adapters/inbound/graphql/schema.js';
import type { ParentsOf, ResourceUseCases } from '../../src/adapters/inbound/resources.js';
import type { Database } from '../../src/adapters/outbound/mikroorm/database.js';
import { createResourceTable, tableOf } from '../../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { GetMany, ListByReference } from '../../src/application/resources/related.js';
import { ConflictError, NotFoundError } from '../../src/domain/shared/DomainError.js';
import type { ListQuery, Page } from '../../src/domain/shared/Page.js';
import { declareResource, entityOf, field } from '../../src/domain/shared/resource.js';
import { connectDatabase } from './database.js';

/**
 * Customers and invoices, an invoice referring to its customer: `Customer.invoices(pagination…)` and
 * `Invoice.customer`, the relation fields whose nesting multiplies what a GraphQL document asks for.
 */
export const CUSTOMER = declareResource({
  name: 'customer',
  plural: 'customers',
  fields: { name: field.string(1, 80) },
});
export const INVOICE = declareResource({
  name: 'invoice',
  plural: 'invoices',
  fields: {
    customerId: field.ref('customer', 'customers'),
    number: field.string(1, 40),
    amount: field.decimal(12, 2),
  },
});
export class Customer extends entityOf(CUSTOMER) {}
export class Invoice extends entityOf(INVOICE) {}

/** What the relation fields and the root lists read. */
interface Rows<E> {
  findById(id: string): Promise<E | undefined>;
  findByIds(ids: readonly string[]): Promise<readonly E[]>;
  list(query: ListQuery<string>): Promise<Page<E>>;
  listByReference(
    field: string,
    ids: readonly string[],
    query: ListQuery<string>,
  ): Promise<ReadonlyMap<string, Page<E>>>;
}

/** How many reads the resolvers asked of the use cases. */
export interface Reads {
  count: number;
}

/** The use cases the list and relation fields call (not the mutations'), each call counted in `reads`. */
function useCasesOf<E>(rows: Rows<E>, human: string, reads: Reads): ResourceUseCases<never, never> {
  const counted =
    <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      reads.count += 1;
      return read(...args);
    };
  return {
    get: {
      execute: counted(async ({ id }: { id: string }) => {
        const row = await rows.findById(id);
        if (!row) throw new NotFoundError(human, id);
        return row;
      }),
    },
    list: { execute: counted((query: ListQuery<string>) => rows.list(query)) },
    getMany: { execute: counted((input: { ids: readonly string[] }) => new GetMany(rows).execute(input)) },
    listByReference: {
      execute: counted((input: { field: string; ids: readonly string[]; query: ListQuery<string> }) =>
        new ListByReference(rows).execute(input),
      ),
    },
  } as unknown as ResourceUseCases<never, never>;
}

const inbound = (declaration: typeof CUSTOMER | typeof INVOICE) => ({
  declaration: declaration as never,
  notFound: (id: string) => new NotFoundError(declaration.name, id),
});

/** The two resources' GraphQL fragments over `customers` and `invoices`, every read counted in `reads`. */
export function customerInvoiceFragments(
  customers: Rows<Customer>,
  invoices: Rows<Invoice>,
  reads: Reads,
): GraphQLFragment[] {
  const customerUseCases = useCasesOf(customers, 'Customer', reads);
  const parents = {
    customerId: { resource: inbound(CUSTOMER), useCases: customerUseCases },
  } as ParentsOf<typeof INVOICE.fields>;
  return [
    resourceGraphQL(inbound(CUSTOMER), customerUseCases as never),
    resourceGraphQL(inbound(INVOICE), useCasesOf(invoices, 'Invoice', reads) as never, parents),
  ];
}

/** The schema the service serves for the two resources, without resolvers (for measuring documents). */
export function customerInvoiceSchema(): GraphQLSchema {
  return createSchema(
    [resourceTypeDefs(CUSTOMER), resourceTypeDefs(INVOICE)].map((typeDefs) => ({
      typeDefs,
      scalars: ['Decimal'] as const,
      resolvers: {},
    })),
  );
}

/** A caller the policy lets read everything: a plain `user`. */
export const READ_ANYTHING: GraphQLAccess = {
  authenticate: { execute: async () => ({ userId: 'u1', role: 'user', sessionId: 's1' }) } as never,
  policy: { enforce: async () => true, scopeOf: async () => 'all' } as never,
};

const T0 = new Date('2026-01-01T00:00:00Z');
const idOf = (kind: number, n: number) =>
  `00000000-0000-4000-8000-${(kind * 0x100000 + n).toString(16).padStart(12, '0')}`;

/** Customers and invoices in SQLite tables of their own, as the service keeps declared resources. */
export interface CustomerInvoiceStore {
  database: Database;
  customers: SqlResourceRepository<Customer, never, string>;
  invoices: SqlResourceRepository<Invoice, never, string>;
  close(): Promise<void>;
}

/** In-memory SQLite with `customerCount` customers of `invoicesEach` invoices each. */
export async function customerInvoiceStore(customerCount: number, invoicesEach: number): Promise<CustomerInvoiceStore> {
  const database = await connectDatabase('sqlite::memory:');
  const CUSTOMERS = tableOf(Customer, (id) => new ConflictError('Customer is still referenced', id));
  const INVOICES = tableOf(Invoice, (id) => new ConflictError('Invoice is still referenced', id));
  const knex = (database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
  for (const table of [CUSTOMERS, INVOICES])
    for (const statement of createResourceTable(knex, table)) await knex.raw(statement);
  const customers = new SqlResourceRepository<Customer, never, string>(database, CUSTOMERS as never);
  const invoices = new SqlResourceRepository<Invoice, never, string>(database, INVOICES as never);
  for (let c = 0; c < customerCount; c++) {
    await customers.add(Customer.create({ id: idOf(1, c), name: `Customer ${c}` }, T0));
    for (let i = 0; i < invoicesEach; i++) {
      const n = c * invoicesEach + i;
      await invoices.add(
        Invoice.create(
          { id: idOf(2, n), customerId: idOf(1, c), number: `INV-${n}`, amount: `${n}.50` },
          new Date(T0.getTime() + n * 1000),
        ),
      );
    }
  }
  return { database, customers, invoices, close: () => database.close() };
}
