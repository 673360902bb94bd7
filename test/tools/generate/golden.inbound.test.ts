import { expect } from 'chai';
import { inboundFiles } from '../../../tools/generate/templates/inbound/index.js';
import { invoiceModel, itRendersAsCommitted, productModel } from './models.js';

describe('generate: inbound templates', () => {
  describe('the golden rule: the product model renders the committed product files', () => {
    itRendersAsCommitted(inboundFiles(productModel()));

    it('renders exactly the product resource inbound files', () => {
      expect(inboundFiles(productModel()).map((f) => f.path)).to.deep.equal([
        'src/adapters/inbound/productUseCases.ts',
      ]);
    });
  });

  describe('a generated resource', () => {
    const files = inboundFiles(invoiceModel());
    const file = (end: string) => files.find((f) => f.path.endsWith(end))?.contents ?? '';

    it('has one inbound file: what it drives, its declaration and 404, its paths and id parser', () => {
      expect(files.map((f) => f.path)).to.deep.equal(['src/adapters/inbound/invoiceUseCases.ts']);
      expect(file('invoiceUseCases.ts')).to.include('export const INVOICE_PATHS = pathsOf(INVOICE);');
      expect(file('invoiceUseCases.ts')).to.include('notFound: (id) => new InvoiceNotFoundError(id),');
    });
  });
});
