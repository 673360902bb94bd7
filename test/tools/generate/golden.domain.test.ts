import { expect } from 'chai';
import { domainFiles } from '../../../tools/generate/templates/domain/index.js';
import { itRendersAsCommitted, modelOf, productModel } from './models.js';

describe('generate: the domain template reproduces the committed product (the golden rule)', () => {
  const files = domainFiles(productModel());

  it('writes the entity only: its declaration and class (errors, port and use cases are the shared cores)', () => {
    expect(files.map((f) => f.path)).to.deep.equal(['src/domain/product/Product.ts']);
  });

  itRendersAsCommitted(files);

  it('declares the search field only for a resource with --search, and imports no errors of its own', () => {
    const [gadget] = domainFiles(
      modelOf(['gadget', 'name:string', 'notes:text?'], ['product', 'user'], '20261127T0512'),
    );
    expect(gadget?.contents).not.to.include('search:');
    expect(gadget?.contents).not.to.include('Errors');
    expect(gadget?.contents).to.include('export class Gadget extends entityOf(GADGET) {}');
    expect(gadget?.contents).to.include('`null` clears an optional one');
  });
});
