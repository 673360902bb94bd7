import { expect } from 'chai';
import { testFiles } from '../../../tools/generate/templates/tests/index.js';
import { modelOf, invoiceModel, itRendersAsCommitted, productModel } from './models.js';

describe('generate: the test template', () => {
  describe('products are its golden output', () => {
    it('writes one test file, test/resources/products.test.ts', () => {
      expect(testFiles(productModel()).map((f) => f.path)).to.deep.equal(['test/resources/products.test.ts']);
    });
    itRendersAsCommitted(testFiles(productModel()));
  });

  it('runs the shared suites over the declaration, whatever the fields: an invoice that refers to a customer', () => {
    expect(testFiles(invoiceModel())).to.deep.equal([
      {
        path: 'test/resources/invoices.test.ts',
        contents: `import { Invoice } from '../../src/domain/invoice/Invoice.js';
import { describeResource } from '../support/resource/suites.js';

describeResource(Invoice);
`,
      },
    ]);
  });

  it('names a resource of several words by its camel-case plural', () => {
    const [file] = testFiles(modelOf(['purchase_order', 'number:string'], ['product', 'user'], '20261127T0512'));
    expect(file?.path).to.equal('test/resources/purchaseOrders.test.ts');
    expect(file?.contents).to.include(
      "import { PurchaseOrder } from '../../src/domain/purchase_order/PurchaseOrder.js';",
    );
  });
});
