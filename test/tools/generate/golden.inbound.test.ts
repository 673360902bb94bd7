import { expect } from 'chai';
import { buildSchema, isEnumType, isInputObjectType, isObjectType } from 'graphql';
import { inboundFiles } from '../../../tools/generate/templates/inbound/index.js';
import type { FileContents } from '../../../tools/generate/writer.js';
import { committed, customerModel, invoiceModel, itRendersAsCommitted, productModel, squeezed } from './models.js';

describe('generate: inbound templates', () => {
  describe('the golden rule: the product model renders the committed product files', () => {
    itRendersAsCommitted(inboundFiles(productModel()));

    it('renders exactly the product resource inbound files', () => {
      expect(inboundFiles(productModel()).map((f) => f.path)).to.deep.equal([
        'src/adapters/inbound/productUseCases.ts',
        'src/adapters/inbound/codecs/productCodecs.ts',
        'src/adapters/inbound/http/routes/products.ts',
        'src/adapters/inbound/graphql/products.graphql',
        'src/adapters/inbound/graphql/productResolvers.ts',
      ]);
    });
  });

  describe('GraphQL SDL of generated resources', () => {
    const sdl = (files: FileContents[]) => files.find((f) => f.path.endsWith('.graphql'))?.contents ?? '';
    const schema = () =>
      buildSchema(
        [
          committed('src/adapters/inbound/graphql/schema.graphql'),
          committed('src/adapters/inbound/graphql/products.graphql'),
          sdl(inboundFiles(customerModel())),
          sdl(inboundFiles(invoiceModel())),
        ].join('\n'),
      );

    it('builds one valid schema with the shared SDL and products', () => {
      const built = schema();
      const query = built.getQueryType()?.getFields() ?? {};
      const mutation = built.getMutationType()?.getFields() ?? {};
      expect(Object.keys(query)).to.include.members([
        'queryHealth',
        'product',
        'products',
        'customer',
        'customers',
        'invoice',
        'invoices',
      ]);
      expect(Object.keys(mutation)).to.include.members([
        'createCustomer',
        'updateCustomer',
        'deleteCustomer',
        'createInvoice',
        'updateInvoice',
        'deleteInvoice',
      ]);
    });

    it('a searchable resource takes search, a ref field becomes an optional ID filter on the list', () => {
      const query = schema().getQueryType()?.getFields() ?? {};
      const args = (field: string) =>
        Object.fromEntries((query[field]?.args ?? []).map((a) => [a.name, String(a.type)]));
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
        tier: 'InvoiceTier!',
        score: 'Int',
        contact: 'String',
        ext: 'ID',
        createdAt: 'DateTime!',
        updatedAt: 'DateTime!',
      });
      const create = built.getType('CreateInvoiceInput');
      const update = built.getType('UpdateInvoiceInput');
      if (!isInputObjectType(create) || !isInputObjectType(update)) throw new Error('inputs missing');
      expect(String(create.getFields().customerId?.type)).to.equal('ID!');
      expect(String(create.getFields().notes?.type)).to.equal('String');
      expect(Object.values(update.getFields()).every((f) => !String(f.type).endsWith('!'))).to.equal(true);
      expect(String(built.getType('CustomerTier'))).to.equal('CustomerTier');
    });
  });

  describe('REST and codecs of generated resources', () => {
    const files = inboundFiles(invoiceModel());
    const file = (end: string) => files.find((f) => f.path.endsWith(end))?.contents ?? '';

    it('writes its files under the resource names', () => {
      expect(files.map((f) => f.path)).to.deep.equal([
        'src/adapters/inbound/invoiceUseCases.ts',
        'src/adapters/inbound/codecs/invoiceCodecs.ts',
        'src/adapters/inbound/http/routes/invoices.ts',
        'src/adapters/inbound/graphql/invoices.graphql',
        'src/adapters/inbound/graphql/invoiceResolvers.ts',
      ]);
    });

    it('a resource without --search has no search route or use case', () => {
      expect(file('invoiceUseCases.ts')).not.to.include('search');
      // Its operations say it has none (`search: false`), so neither the router nor the API document has one.
      expect(file('routes/invoices.ts')).not.to.match(/ops\.search|notSearch|\/search/);
      expect(squeezed(file('routes/invoices.ts'))).to.include(
        'sortFields: INVOICE_SORT_FIELDS, search: false, filters: InvoiceFilters, });',
      );
      expect(file('invoiceResolvers.ts')).not.to.include('search');
    });

    it('lists filter by ref fields; optional fields are nullable on create and update', () => {
      expect(squeezed(file('routes/invoices.ts'))).to.include('export const INVOICE_OPERATIONS = resourceOperations({');
      expect(squeezed(file('routes/invoices.ts'))).to.include('filters: InvoiceFilters, });');
      expect(squeezed(file('invoiceCodecs.ts'))).to.include(
        'export const InvoiceFilters = { customerId: optional(InvoiceCustomerIdField) };',
      );
      expect(squeezed(file('invoiceCodecs.ts'))).to.include('notes: optional(nullable(InvoiceNotesField))');
      expect(squeezed(file('invoiceCodecs.ts'))).to.include(
        'export const InvoiceTierField = enumField<InvoiceTier>(INVOICE_FIELD_RULES.tier);',
      );
    });

    it('a multi-word plural gets a kebab-case route file and path', () => {
      const paths = inboundFiles({
        ...invoiceModel(),
        names: { ...invoiceModel().names, pluralKebab: 'purchase-orders' },
      }).map((f) => f.path);
      expect(paths).to.include('src/adapters/inbound/http/routes/purchase-orders.ts');
    });
  });
});
