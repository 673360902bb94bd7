import { expect } from 'chai';
import { domainFiles } from '../../../tools/generate/templates/domain/index.js';
import { itRendersAsCommitted, modelOf, productModel } from './models.js';

describe('generate: the domain templates reproduce the committed product (the golden rule)', () => {
  const files = domainFiles(productModel());

  it('writes the entity, its errors, its port and the six use cases', () => {
    expect(files.map((f) => f.path)).to.deep.equal([
      'src/domain/product/Product.ts',
      'src/domain/product/ProductErrors.ts',
      'src/domain/product/ProductRepository.ts',
      'src/application/product/CreateProduct.ts',
      'src/application/product/GetProduct.ts',
      'src/application/product/ListProducts.ts',
      'src/application/product/SearchProducts.ts',
      'src/application/product/UpdateProduct.ts',
      'src/application/product/DeleteProduct.ts',
    ]);
  });

  itRendersAsCommitted(files);

  it('writes no search use case for a resource without --search', () => {
    expect(domainFiles(modelOf(['gadget', 'name:string'], ['product', 'user'], 3)).map((f) => f.path)).to.not.include(
      'src/application/gadget/SearchGadgets.ts',
    );
  });
});
