import { expect } from 'chai';
import { GetResource } from '../../../src/application/resources/GetResource.js';
import { Product } from '../../../src/domain/product/Product.js';
import { NotFoundError } from '../../../src/domain/shared/DomainError.js';
import { productInput, productRows, type ProductRows } from '../../support/resources/product.js';
import { rejectionOf, START } from '../world.js';

describe('GetResource (over products)', () => {
  let products: ProductRows;
  let get: GetResource<Product>;
  let widget: Product;

  beforeEach(async () => {
    products = productRows();
    get = new GetResource({ rows: products, errors: Product.errors });
    widget = Product.create(
      { ...productInput, id: '00000000-0000-4000-8000-000000000001', name: 'Widget', price: 19.99 },
      START,
    );
    await products.add(widget);
    await products.add(
      Product.create({ ...productInput, id: '00000000-0000-4000-8000-000000000002', name: 'Gadget', price: 5 }, START),
    );
  });

  it('answers the product with that id, every field intact', async () => {
    expect((await get.execute({ id: widget.id })).toProps()).to.deep.equal(widget.toProps());
  });

  it('answers NOT_FOUND "Product not found" with the id in the detail for an unknown id', async () => {
    const unknown = '00000000-0000-4000-8000-0000000000ff';
    const error = await rejectionOf(get.execute({ id: unknown }));
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', message: 'Product not found', detail: `id: ${unknown}` });
  });

  it('answers NOT_FOUND for an id that is not a UUID at all', async () => {
    const error = await rejectionOf(get.execute({ id: 'search' }));
    expect(error).to.include({ code: 'NOT_FOUND', message: 'Product not found', detail: 'id: search' });
  });

  it('answers NOT_FOUND once the product is deleted', async () => {
    await products.delete(widget.id);
    const error = await rejectionOf(get.execute({ id: widget.id }));
    expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${widget.id}` });
  });
});
