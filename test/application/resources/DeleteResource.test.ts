import { expect } from 'chai';
import { DeleteResource } from '../../../src/application/resources/DeleteResource.js';
import { Product } from '../../../src/domain/product/Product.js';
import { NotFoundError, PreconditionFailedError } from '../../../src/domain/shared/DomainError.js';
import { productInput, productRows, type ProductRows } from '../../support/resources/product.js';
import { rejectionOf, START } from '../world.js';

describe('DeleteResource (over products)', () => {
  let products: ProductRows;
  let remove: DeleteResource<Product>;
  let widget: Product;
  let gadget: Product;

  beforeEach(async () => {
    products = productRows();
    remove = new DeleteResource({ rows: products, errors: Product.errors });
    widget = Product.create(
      { ...productInput, id: '00000000-0000-4000-8000-000000000001', name: 'Widget', price: 19.99 },
      START,
    );
    gadget = Product.create(
      { ...productInput, id: '00000000-0000-4000-8000-000000000002', name: 'Gadget', price: 5 },
      START,
    );
    await products.add(widget);
    await products.add(gadget);
  });

  it('deletes the product and leaves the others alone', async () => {
    await remove.execute({ id: widget.id });
    expect(await products.findById(widget.id)).to.equal(undefined);
    expect((await products.findById(gadget.id))?.toProps()).to.deep.equal(gadget.toProps());
  });

  it('answers NOT_FOUND "Product not found" for an unknown id, deleting nothing', async () => {
    const unknown = '00000000-0000-4000-8000-0000000000ff';
    const error = await rejectionOf(remove.execute({ id: unknown }));
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', message: 'Product not found', detail: `id: ${unknown}` });
    expect((await products.list({ page: 1, perPage: 10, sort: 'name', order: 'asc' })).total).to.equal(2);
  });

  it('answers NOT_FOUND the second time the same product is deleted', async () => {
    await remove.execute({ id: widget.id });
    const error = await rejectionOf(remove.execute({ id: widget.id }));
    expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${widget.id}` });
  });

  describe('conditional (expected versions, an If-Match)', () => {
    it('deletes the product when it is at an expected version', async () => {
      await remove.execute({ id: widget.id, expectedVersions: [3, 1] });
      expect(await products.findById(widget.id)).to.equal(undefined);
    });

    it('answers PRECONDITION_FAILED when the product is at another version, and it stays', async () => {
      const updated = (await products.update(widget.id, (p) => p.update({ price: 1 }, START)))!;
      for (const expectedVersions of [[1], [3], []]) {
        const error = await rejectionOf(remove.execute({ id: widget.id, expectedVersions }));
        expect(error).to.be.instanceOf(PreconditionFailedError);
        expect(error).to.include({ code: 'PRECONDITION_FAILED', detail: `id: ${widget.id}` });
      }
      expect((await products.findById(widget.id))?.toProps()).to.deep.equal(updated.toProps());
    });

    it('answers NOT_FOUND, not PRECONDITION_FAILED, for an unknown or already deleted product', async () => {
      await remove.execute({ id: widget.id });
      const error = await rejectionOf(remove.execute({ id: widget.id, expectedVersions: [1] }));
      expect(error).to.be.instanceOf(NotFoundError);
    });
  });
});
