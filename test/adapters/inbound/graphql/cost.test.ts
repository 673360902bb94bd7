import { expect } from 'chai';
import { getIntrospectionQuery, parse, validate, type OperationDefinitionNode } from 'graphql';
import {
  costLimit,
  queryCost,
  type CostRequest,
  type KnownCosts,
} from '../../../../src/adapters/inbound/graphql/cost.js';
import { customerInvoiceSchema } from '../../../support/customersAndInvoices.js';
import { countingFragmentReads } from '../../../support/fragmentReads.js';

const schema = customerInvoiceSchema();

/** The cost of `source`'s operation (`request`'s, or its only one). */
const costOf = (source: string, request: CostRequest = {}): number => {
  const cost = queryCost(schema, parse(source), request);
  if (!cost) throw new Error('no single operation');
  return cost.cost;
};

const list = (field: string, limit: number | undefined, selection: string): string =>
  `${field}${limit === undefined ? '' : `(pagination: { limit: ${limit} })`} { data { ${selection} } }`;

/** One alias of the reported attack: customers → invoices → customer → invoices, 100 a page. */
const NESTED = list('customers', 100, list('invoices', 100, `customer { ${list('invoices', 100, 'id')} }`));
/**
 * `NESTED`: the customer list object, then each of 100 customers, its invoice list object and 100
 * invoices, each invoice with its customer, that customer's invoice list object and 100 invoices.
 */
const NESTED_COST = 1 + 100 * (1 + 1 + 100 * (1 + 1 + 1 + 100));
const FIVE_ALIASES = `{ ${Array.from({ length: 5 }, (_, i) => `a${i}: ${NESTED}`).join(' ')} }`;

/** The messages the cost limit reports for `source` with `request`. */
const refusals = (maxCost: number, source: string, request: CostRequest = {}, known?: KnownCosts): string[] =>
  validate(schema, parse(source), [costLimit(maxCost, request, known)]).map((e) => e.message);

/** `{ ...F0 }` with `F<i> { ...F<i+1> ...F<i+1> }` and `F<n>` a page of `limit` customers: 2^n pages. */
function doublingFragments(n: number, limit: number): string {
  const fragments = Array.from({ length: n }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return `query { ...F0 } ${fragments.join(' ')} fragment F${n} on Query { ${list('customers', limit, 'id')} }`;
}

describe('GraphQL query cost (worst-case objects returned)', () => {
  it('counts a list object, then its page of items; scalar fields cost nothing', () => {
    expect(costOf('{ __typename }')).to.equal(0);
    expect(costOf(`{ ${list('customers', 5, 'id name')} }`)).to.equal(1 + 5);
    expect(costOf('{ customers { pagination { totalRecords } } }')).to.equal(2);
    expect(costOf('{ customer(id: "x") { id } }')).to.equal(1);
  });

  it('a page without a limit counts the default page size, 20 (absent, null, or pagination without limit)', () => {
    expect(costOf(`{ ${list('customers', undefined, 'id')} }`)).to.equal(21);
    expect(costOf('{ customers(pagination: null) { data { id } } }')).to.equal(21);
    expect(costOf('{ customers(pagination: { page: 3 }) { data { id } } }')).to.equal(21);
    expect(costOf('{ customers(pagination: { limit: null }) { data { id } } }')).to.equal(21);
  });

  it('multiplies nested pages: the reported attack costs 1,030,201 an alias, 5,151,005 for five', () => {
    expect(costOf(`{ ${NESTED} }`)).to.equal(NESTED_COST);
    expect(NESTED_COST).to.equal(1_030_201);
    expect(costOf(FIVE_ALIASES)).to.equal(5 * NESTED_COST);
  });

  it('counts a single related object once per parent (Invoice.customer)', () => {
    expect(costOf(`{ ${list('invoices', 10, 'id customer { id name }')} }`)).to.equal(1 + 10 * 2);
  });

  it('counts every alias', () => {
    const one = list('customers', 7, 'id');
    expect(costOf(`{ a: ${one} b: ${one} c: ${one} }`)).to.equal(3 * 8);
    expect(
      costOf(`{ ${list('customers', 10, `x: ${list('invoices', 3, 'id')} y: ${list('invoices', 4, 'id')}`)} }`),
    ).to.equal(1 + 10 * (1 + (1 + 3) + (1 + 4)));
  });

  it('counts named and inline fragments as if written out, at the page size of the field they are spread in', () => {
    const written = costOf(`{ ${NESTED} }`);
    expect(
      costOf(`{ customers(pagination: { limit: 100 }) { ...Customers } }
        fragment Customers on CustomerList { data { ...Invoices } }
        fragment Invoices on Customer {
          invoices(pagination: { limit: 100 }) { data { ... on Invoice { customer { ...Last } } } }
        }
        fragment Last on Customer { invoices(pagination: { limit: 100 }) { ... on InvoiceList { data { id } } } }`),
    ).to.equal(written);
    // One fragment over a list type, spread in pages of 3 and of 40: each spread takes its own page size.
    expect(
      costOf(`{ a: customers(pagination: { limit: 3 }) { ...Page } b: customers(pagination: { limit: 40 }) { ...Page } }
        fragment Page on CustomerList { data { id } pagination { totalRecords } }`),
    ).to.equal(1 + 3 + 1 + (1 + 40 + 1));
  });

  it('fragments spread many times and nested: counted at every spread, each fragment read once', () => {
    // 2^12 pages of 10 customers.
    const document = parse(doublingFragments(12, 10));
    const reads = countingFragmentReads(document);
    expect(queryCost(schema, document, {})?.cost).to.equal(4096 * 11);
    for (const [name, count] of reads) expect(count, name).to.equal(1);
    expect(costOf(doublingFragments(40, 1))).to.equal(2 ** 40 * 2);
    // Too large to be exact: stops at MAX_SAFE_INTEGER, and says so.
    expect(costOf(doublingFragments(2000, 100))).to.equal(Number.MAX_SAFE_INTEGER);
    expect(refusals(10_000, doublingFragments(2000, 100))).to.deep.equal([
      'query may return at least 9007199254740991 objects, more than the cost limit of 10000',
    ]);
  });

  it('takes page sizes from variables: the limit alone, the whole pagination object, or the default value', () => {
    const byLimit = 'query ($n: Int) { customers(pagination: { limit: $n }) { data { id } } }';
    expect(queryCost(schema, parse(byLimit), { variableValues: { n: 100 } })).to.deep.equal({
      cost: 101,
      variables: true,
    });
    expect(costOf(byLimit, { variableValues: {} })).to.equal(21);
    expect(costOf(byLimit, { variableValues: { n: null } })).to.equal(21);
    const withDefault = 'query ($n: Int = 50) { customers(pagination: { limit: $n }) { data { id } } }';
    expect(costOf(withDefault)).to.equal(51);
    expect(costOf(withDefault, { variableValues: { n: 2 } })).to.equal(3);
    const byObject = 'query ($p: TPaginationInputDto) { customers(pagination: $p) { data { id } } }';
    expect(costOf(byObject, { variableValues: { p: { limit: 70, page: 2 } } })).to.equal(71);
    expect(costOf(byObject, { variableValues: { p: { page: 2 } } })).to.equal(21);
    expect(queryCost(schema, parse(`{ ${list('customers', 100, 'id')} }`), {})?.variables).to.equal(false);
  });

  it('a limit execution would refuse never lowers the cost: negative counts 0 items, a non-integer the default', () => {
    expect(costOf(`{ ${list('customers', -1_000_000, 'id')} ${list('invoices', 100, 'id')} }`)).to.equal(1 + 1 + 100);
    expect(
      costOf('query ($n: Int) { customers(pagination: { limit: $n }) { data { id } } }', {
        variableValues: { n: '9' },
      }),
    ).to.equal(21);
  });

  it('lists without a limit argument count one item a parent: introspection costs little', () => {
    const introspection = costOf(getIntrospectionQuery());
    expect(introspection).to.be.above(10).and.below(100);
    expect(refusals(10_000, getIntrospectionQuery())).to.deep.equal([]);
    // A mutation's `errors` list: one item.
    expect(costOf('mutation { deleteCustomer(id: "x") { status errors { fieldName } } }')).to.equal(2);
  });

  it('measures the operation the request runs', () => {
    const two = `query Small { ${list('customers', 1, 'id')} } query Large { ${NESTED} }`;
    expect(costOf(two, { operationName: 'Small' })).to.equal(2);
    expect(costOf(two, { operationName: 'Large' })).to.equal(NESTED_COST);
    expect(queryCost(schema, parse(two), {})).to.equal(undefined);
    expect(queryCost(schema, parse(two), { operationName: 'Other' })).to.equal(undefined);
    expect(refusals(10_000, two, { operationName: 'Small' })).to.deep.equal([]);
    expect(refusals(10_000, two, { operationName: 'Large' })).to.have.length(1);
  });

  it('refuses a document one object over the limit, naming the cost and the limit, and accepts it at the limit', () => {
    const at = `{ ${list('customers', 99, 'id')} }`; // 100
    const over = `{ ${list('customers', 100, 'id')} }`; // 101
    expect(refusals(100, at)).to.deep.equal([]);
    expect(refusals(100, over)).to.deep.equal(['query may return 101 objects, more than the cost limit of 100']);
    const [error] = validate(schema, parse(over), [costLimit(100, {})]);
    expect(error?.extensions.code).to.equal('QUERY_TOO_COMPLEX');
    expect(error?.locations).to.deep.equal([{ line: 1, column: 1 }]);
    expect(refusals(10_000, FIVE_ALIASES)).to.deep.equal([
      'query may return 5151005 objects, more than the cost limit of 10000',
    ]);
  });

  it('keeps costs that do not depend on variables; measures the others again with each request’s variables', () => {
    const known: KnownCosts = new WeakMap();
    const fixed = parse(`{ ${list('customers', 100, 'id')} }`);
    validate(schema, fixed, [costLimit(10_000, {}, known)]);
    expect(known.get(fixed.definitions[0] as OperationDefinitionNode)).to.equal(101);
    const byVariable = parse('query ($n: Int) { customers(pagination: { limit: $n }) { data { id } } }');
    const check = (n: number) =>
      validate(schema, byVariable, [costLimit(50, { variableValues: { n } }, known)]).map((e) => e.message);
    expect(check(49)).to.deep.equal([]);
    expect(check(50)).to.deep.equal(['query may return 51 objects, more than the cost limit of 50']);
    expect(check(10)).to.deep.equal([]);
    expect(known.has(byVariable.definitions[0] as OperationDefinitionNode)).to.equal(false);
  });

  it('terminates on invalid documents: unknown fields and fragments, cyclic fragments (other rules report them)', () => {
    expect(costOf('{ nope { data { id } } customers { data { nope { id } } } }')).to.equal(21);
    expect(costOf('{ ...Missing }')).to.equal(0);
    expect(
      costOf('{ ...A } fragment A on Query { ...B } fragment B on Query { ...A customers { data { id } } }'),
    ).to.equal(21);
  });
});
