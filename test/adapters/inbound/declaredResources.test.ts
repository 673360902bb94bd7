import { expect } from 'chai';
import {
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isObjectType,
  Kind,
  printSchema,
  type GraphQLScalarType,
} from 'graphql';
import { resourceGraphQL } from '../../../src/adapters/inbound/graphql/resourceGraphQL.js';
import { createSchema } from '../../../src/adapters/inbound/graphql/schema.js';
import { operationsOf, restPresenter } from '../../../src/adapters/inbound/http/resourceOperations.js';
import { decodeBody, type Shape } from '../../../src/adapters/inbound/codecs/fields.js';
import { bodiesOf } from '../../../src/adapters/inbound/codecs/resourceCodecs.js';
import type { ResourceUseCases } from '../../../src/adapters/inbound/resources.js';
import { NumberText } from '../../../src/domain/shared/Decimal.js';
import type { ValidationError } from '../../../src/domain/shared/DomainError.js';
import { NotFoundError } from '../../../src/domain/shared/DomainError.js';
import { declareResource, entityOf, field, type FieldDeclarations } from '../../../src/domain/shared/resource.js';

/** The two related resources the generator's tests use, declared as the generator writes them. */
const CUSTOMER = declareResource({
  name: 'customer',
  plural: 'customers',
  fields: { name: field.string(1, 200), email: field.email(), tier: field.enum(['free', 'pro']) },
  search: 'name',
});
const INVOICE = declareResource({
  name: 'invoice',
  plural: 'invoices',
  fields: {
    customerId: field.ref('customer', 'customers'),
    number: field.string(1, 80),
    total: field.number(),
    dueAt: field.datetime(),
    paid: field.boolean(),
    notes: field.text(0, 10000).optional(),
    score: field.integer(0, 10).optional(),
    tier: field.enum(['free', 'pro']),
    contact: field.email().optional(),
    ext: field.uuid().optional(),
  },
});
class Invoice extends entityOf(INVOICE) {}

const inbound = <F extends FieldDeclarations>(declaration: Parameters<typeof operationsOf<F>>[0]) => ({
  declaration,
  notFound: (id: string) => new NotFoundError('Thing', id),
});
const schema = () =>
  createSchema([
    resourceGraphQL(inbound(CUSTOMER), {} as ResourceUseCases<never, typeof CUSTOMER.fields>),
    resourceGraphQL(inbound(INVOICE), {} as ResourceUseCases<never, typeof INVOICE.fields>, {
      customerId: { resource: inbound(CUSTOMER) as never, useCases: {} as never },
    }),
  ]);

describe('the inbound adapters of a declared resource', () => {
  describe('GraphQL', () => {
    it('a searchable resource takes search, a ref field becomes an optional ID filter on the list', () => {
      const query = schema().getQueryType()?.getFields() ?? {};
      const args = (name: string) => Object.fromEntries((query[name]?.args ?? []).map((a) => [a.name, String(a.type)]));
      expect(args('customers')).to.deep.equal({
        pagination: 'TPaginationInputDto',
        sort: 'TSortingInputDto',
        search: 'String',
      });
      expect(args('invoices')).to.deep.equal({
        pagination: 'TPaginationInputDto',
        sort: 'TSortingInputDto',
        customerId: 'ID',
      });
      expect(String(query.invoices?.type)).to.equal('InvoiceList!');
      expect(String(query.invoice?.type)).to.equal('Invoice');
      const mutation = schema().getMutationType()?.getFields() ?? {};
      expect(Object.keys(mutation)).to.include.members(['createInvoice', 'updateInvoice', 'deleteInvoice']);
    });

    it('every field type has its GraphQL type; optional fields are nullable; enums are upper-cased enum types', () => {
      const built = schema();
      const tier = built.getType('InvoiceTier');
      expect(isEnumType(tier) && tier.getValues().map((v) => v.name)).to.deep.equal(['FREE', 'PRO']);
      const invoice = built.getType('Invoice');
      if (!isObjectType(invoice)) throw new Error('Invoice is not an object type');
      const types = Object.fromEntries(Object.values(invoice.getFields()).map((f) => [f.name, String(f.type)]));
      expect(types).to.deep.equal({
        id: 'ID!',
        customerId: 'ID!',
        number: 'String!',
        total: 'Float!',
        dueAt: 'DateTime!',
        paid: 'Boolean!',
        notes: 'String',
        score: 'Int',
        tier: 'InvoiceTier!',
        contact: 'String',
        ext: 'ID',
        customer: 'Customer!',
        createdAt: 'DateTime!',
        updatedAt: 'DateTime!',
      });
      const customer = built.getType('Customer');
      if (!isObjectType(customer)) throw new Error('Customer is not an object type');
      const invoices = customer.getFields().invoices;
      expect(String(invoices?.type)).to.equal('InvoiceList!');
      expect(invoices?.args.map((a) => `${a.name}: ${String(a.type)}`)).to.deep.equal([
        'pagination: TPaginationInputDto',
        'sort: TSortingInputDto',
      ]);
      const create = built.getType('CreateInvoiceInput');
      const update = built.getType('UpdateInvoiceInput');
      if (!isInputObjectType(create) || !isInputObjectType(update)) throw new Error('inputs missing');
      expect(String(create.getFields().customerId?.type)).to.equal('ID!');
      expect(String(create.getFields().notes?.type)).to.equal('String');
      expect(Object.values(update.getFields()).every((f) => !String(f.type).endsWith('!'))).to.equal(true);
      expect(String(built.getType('CustomerTier'))).to.equal('CustomerTier');
    });
  });

  describe('REST', () => {
    it('a resource without a search field has no search operation; one with it has; a ref adds a nested list', () => {
      expect(Object.keys(operationsOf(INVOICE))).to.deep.equal([
        'list',
        'create',
        'get',
        'update',
        'remove',
        'listByCustomer',
      ]);
      expect(Object.keys(operationsOf(CUSTOMER))).to.include('search');
    });

    it('lists filter by ref fields and sort by the declared sort keys', () => {
      const { list } = operationsOf(INVOICE);
      expect(Object.keys(list.list.filters ?? {})).to.deep.equal(['customerId']);
      expect(list.list.sortFields).to.include.members(['customer_id', 'due_at', 'score', 'created_at']);
      expect(list.list.sortFields).not.to.include('notes');
    });

    it('decodes a body by JSON names: optional fields may be absent or null, every failure at once', () => {
      const { create, update } = bodiesOf(INVOICE);
      const body = {
        customer_id: '7D8A9C1E-2B3F-4A5D-8E6F-0A1B2C3D4E5F',
        number: ' INV-1 ',
        total: 1.5,
        due_at: '2026-03-01T10:00:00+01:00',
        paid: false,
        tier: 'pro',
        notes: null,
      };
      const decoded = decodeBody(create, body);
      expect(decoded.customerId).to.equal('7d8a9c1e-2b3f-4a5d-8e6f-0a1b2c3d4e5f');
      expect(decoded.number).to.equal('INV-1');
      expect(decoded.dueAt).to.deep.equal(new Date('2026-03-01T09:00:00Z'));
      expect(decoded.notes).to.equal(null);
      expect(decodeBody(update, { score: null })).to.deep.equal({ score: null });
      try {
        decodeBody(create, { ...body, number: '', score: 11, tier: 'gold', due_at: '2026-02-30T00:00:00Z' });
        expect.fail('decoded');
      } catch (error) {
        expect((error as ValidationError).fields.map((f) => f.field)).to.deep.equal([
          'number',
          'due_at',
          'score',
          'tier',
        ]);
      }
    });

    it('answers an entity by JSON names: instants in UTC with Z, empty optional fields as null', () => {
      const now = new Date('2026-01-01T00:00:00Z');
      const invoice = Invoice.create(
        {
          id: '11111111-1111-4111-8111-111111111111',
          customerId: '7d8a9c1e-2b3f-4a5d-8e6f-0a1b2c3d4e5f',
          number: 'INV-1',
          total: 2,
          dueAt: new Date('2026-03-01T09:00:00Z'),
          paid: true,
          tier: 'free',
        },
        now,
      );
      expect(restPresenter(INVOICE)(invoice)).to.deep.equal({
        id: '11111111-1111-4111-8111-111111111111',
        customer_id: '7d8a9c1e-2b3f-4a5d-8e6f-0a1b2c3d4e5f',
        number: 'INV-1',
        total: 2,
        due_at: '2026-03-01T09:00:00.000Z',
        paid: true,
        notes: null,
        score: null,
        tier: 'free',
        contact: null,
        ext: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      });
    });
  });

  describe('decimal fields', () => {
    const LEDGER = declareResource({
      name: 'ledger_entry',
      plural: 'ledger_entries',
      fields: { amount: field.decimal(12, 2, { min: 0 }), fee: field.decimal(5, 0).optional() },
    });
    const ACCOUNT = declareResource({
      name: 'account_line',
      plural: 'account_lines',
      fields: { balance: field.decimal(10, 4) },
    });
    class Ledger extends entityOf(LEDGER) {}
    const MESSAGE = 'must be a decimal of at most 10 digits before the point and 2 after, of at least 0.00';

    it('REST takes text or a JSON number, without rounding, and answers text with exactly s fraction digits', () => {
      const { create } = bodiesOf(LEDGER);
      expect(decodeBody(create, { amount: 0.1 })).to.deep.equal({ amount: '0.10' });
      expect(decodeBody(create, { amount: '12.5', fee: 7 })).to.deep.equal({ amount: '12.50', fee: '7' });
      for (const amount of ['1.005', 0.1 + 0.2, '12345678901', '-0.01', true, '1e2']) {
        try {
          decodeBody(create, { amount });
          expect.fail(`decoded ${String(amount)}`);
        } catch (error) {
          expect((error as ValidationError).fields).to.deep.equal([{ field: 'amount', message: MESSAGE }]);
        }
      }
      const entry = Ledger.create({ id: 'e1', amount: '0.30' }, new Date('2026-01-01T00:00:00Z'));
      expect(restPresenter(LEDGER)(entry)).to.include({ amount: '0.30', fee: null });
    });

    it('REST reads a JSON number by its own text in the body: a long one is refused, never rounded', () => {
      const { create, update } = bodiesOf(LEDGER);
      const decoded = (text: string, shape: Shape = create) => decodeBody(shape, JSON.parse(text), text);
      expect(decoded('{"amount": 12.5, "fee": 7e2}')).to.deep.equal({ amount: '12.50', fee: '700' });
      expect(decoded('{"amount": 0.10000000000000000}')).to.deep.equal({ amount: '0.10' });
      expect(decoded('{"fee": null, "amount": -0}', update)).to.deep.equal({ fee: null, amount: '0.00' });
      const refused = (text: string, field: string, message: string, shape: Shape = create) => {
        try {
          decoded(text, shape);
          expect.fail(`decoded ${text}`);
        } catch (error) {
          expect((error as ValidationError).fields, text).to.deep.equal([{ field, message }]);
        }
      };
      for (const amount of [
        '0.10000000000000001',
        '12345678901234567890',
        '1e400',
        '1e300000000',
        '1.0000000000000001',
      ]) {
        refused(`{"amount": ${amount}}`, 'amount', MESSAGE);
        refused(`{"amount": ${amount}}`, 'amount', MESSAGE, update);
      }
      // The member JSON.parse keeps (the last of a repeated name, escapes read), wherever it stands.
      refused('{"amount": 1, "amount": 0.10000000000000001}', 'amount', MESSAGE);
      refused('{"\\u0061mount": 0.10000000000000001}', 'amount', MESSAGE);
      refused('{"x": {"amount": 1}, "y": [1.5, {"amount": "2"}], "amount": 0.10000000000000001}', 'amount', MESSAGE);
      refused('{"amount": "1", "fee": 1.0000000000000001}', 'fee', 'must be a whole number of at most 5 digits');
    });

    it('the API document states the rule: text or number, its digits as a pattern, its bounds', () => {
      const { create } = bodiesOf(LEDGER);
      expect(create.amount.codec.schema).to.deep.include({
        type: ['string', 'number'],
        pattern: '^-?\\d{1,10}(\\.\\d{1,2})?$',
        minimum: 0,
        examples: ['1.50'],
      });
      expect(create.fee.codec.schema).to.deep.include({ pattern: '^-?\\d{1,5}$' });
      // No integer digits (decimal(2,2)): only 0 before the point, and still a valid pattern.
      const cents = bodiesOf(declareResource({ name: 'x', plural: 'xs', fields: { rate: field.decimal(2, 2) } }));
      const onlyFraction = new RegExp(cents.create.rate.codec.schema.pattern ?? '');
      expect(['0.05', '-0.5', '0'].every((text) => onlyFraction.test(text))).to.equal(true);
      expect(onlyFraction.test('1.05')).to.equal(false);
      const pattern = new RegExp(create.amount.codec.schema.pattern ?? '');
      expect(['12.50', '0', '-3.1'].every((text) => pattern.test(text))).to.equal(true);
      expect(['1.005', '12345678901', '1e2'].some((text) => pattern.test(text))).to.equal(false);
    });

    it('GraphQL: Decimal fields, the scalar declared once for every fragment that uses it, and only then', () => {
      const built = createSchema([
        resourceGraphQL(inbound(LEDGER), {} as ResourceUseCases<never, typeof LEDGER.fields>),
        resourceGraphQL(inbound(ACCOUNT), {} as ResourceUseCases<never, typeof ACCOUNT.fields>),
      ]);
      const entry = built.getType('LedgerEntry');
      expect(isObjectType(entry) && String(entry.getFields().amount?.type)).to.equal('Decimal!');
      expect(isObjectType(entry) && String(entry.getFields().fee?.type)).to.equal('Decimal');
      expect(printSchema(built).match(/^scalar Decimal$/gm)).to.have.length(1);
      expect(schema().getType('Decimal')).to.equal(undefined);

      const scalar = built.getType('Decimal') as GraphQLScalarType;
      // A number literal is handed on as its text, exponent and all: the field's rule weighs it.
      expect(scalar.parseLiteral({ kind: Kind.FLOAT, value: '0.10' })).to.deep.equal(new NumberText('0.10'));
      expect(scalar.parseLiteral({ kind: Kind.FLOAT, value: '1e300000000' })).to.deep.equal(
        new NumberText('1e300000000'),
      );
      expect(scalar.parseLiteral({ kind: Kind.INT, value: '12' })).to.deep.equal(new NumberText('12'));
      expect(scalar.parseLiteral({ kind: Kind.STRING, value: '12.50' })).to.equal('12.50');
      expect(() => scalar.parseLiteral({ kind: Kind.BOOLEAN, value: true })).to.throw('string or a number');
      // A variable: text as it is; a number by its text (the request's, when the route found it).
      expect(scalar.parseValue('0.10')).to.equal('0.10');
      expect(scalar.parseValue(new NumberText('0.10000000000000001'))).to.deep.equal(
        new NumberText('0.10000000000000001'),
      );
      expect(scalar.parseValue(5e-8)).to.deep.equal(new NumberText('5e-8'));
      expect(() => scalar.parseValue(true)).to.throw(GraphQLError);
      expect(scalar.serialize('12.50')).to.equal('12.50');
      expect(() => scalar.serialize(12.5)).to.throw(GraphQLError);
    });
  });
});
