import { expect } from 'chai';
import { testFiles } from '../../../tools/generate/templates/tests/index.js';
import { customerModel, invoiceModel, itRendersAsCommitted, productModel } from './models.js';

describe('generate: the test templates', () => {
  describe('products are their golden output', () => {
    itRendersAsCommitted(testFiles(productModel()));
  });

  it("gives a resource with references its referenced resources' rows: an invoice needs a customer", () => {
    const files = Object.fromEntries(testFiles(invoiceModel()).map((f) => [f.path, f.contents]));
    const support = files['test/support/resources/invoice.ts']!;
    expect(support).to.include("import { aCustomer, customerResource, freshCustomerRepository } from './customer.js';");
    expect(support).to.include('ref: () => customerResource,');
    expect(support).to.include('return new InMemoryInvoiceRepository(customers);');
    expect(files['test/adapters/outbound/resources/invoiceRepository.test.ts']).to.include(
      "reference: { prop: 'customerId', field: 'customer_id', target: 'customer' }",
    );
  });

  it("writes a value every rule refuses, with the rule's message, for every field type", () => {
    const support = testFiles(invoiceModel())[0]!.contents + testFiles(customerModel())[0]!.contents;
    for (const expected of [
      "{ value: '', message: 'must be 1 to 200 characters' }",
      "{ value: 'x'.repeat(10001), message: 'must be at most 10000 characters' }",
      "{ value: '10', message: 'must be a finite number', restOnly: true }",
      "{ value: '2026-03-04T05:06:07', message: 'must be a date-time in RFC 3339 format with a time zone', restOnly: true }",
      "{ value: 'yes', message: 'must be true or false', restOnly: true }",
      "{ value: 'not-an-email', message: 'must be a valid e-mail address' }",
      "{ value: 'nope', message: 'must be one of free, pro', restOnly: true }",
      "graphqlSamples: ['FREE', 'PRO'],",
      "{ value: 'abc', message: 'must be a UUID' }",
    ]) {
      expect(support).to.include(expected);
    }
  });
});
