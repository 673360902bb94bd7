import { expect } from 'chai';
import { InMemoryProductRepository } from '../../../src/adapters/outbound/memory/InMemoryProductRepository.js';
import { UpdateProduct } from '../../../src/application/product/UpdateProduct.js';
import { Product } from '../../../src/domain/product/Product.js';
import { ProductNotFoundError, ProductVersionConflictError } from '../../../src/domain/product/ProductErrors.js';
import type { ProductListQuery, ProductRepository } from '../../../src/domain/product/ProductRepository.js';
import { ValidationError } from '../../../src/domain/shared/DomainError.js';
import type { Page } from '../../../src/domain/shared/Page.js';
import { FixedClock } from '../../support/FixedClock.js';
import { rejectionOf, START } from '../world.js';

/**
 * The in-memory repository with a hook that runs inside `update`, before the write reaches the
 * store: another request's update can land between this request's read and its write.
 */
class InterleavingProductRepository implements ProductRepository {
  readonly inner = new InMemoryProductRepository();
  updateCalls = 0;
  /** Runs (and is awaited) at the start of every `update` while it is set. */
  beforeWrite: ((attempt: number) => Promise<void>) | undefined;

  add(product: Product): Promise<void> {
    return this.inner.add(product);
  }
  findById(id: string): Promise<Product | undefined> {
    return this.inner.findById(id);
  }
  async update(product: Product): Promise<void> {
    this.updateCalls += 1;
    await this.beforeWrite?.(this.updateCalls);
    return this.inner.update(product);
  }
  delete(id: string): Promise<boolean> {
    return this.inner.delete(id);
  }
  list(query: ProductListQuery): Promise<Page<Product>> {
    return this.inner.list(query);
  }
}

describe('UpdateProduct', () => {
  let products: InterleavingProductRepository;
  let clock: FixedClock;
  let update: UpdateProduct;
  let widget: Product;

  const stored = async (id = widget.id) => (await products.findById(id))!.toProps();
  const later = (ms: number) => new Date(START.getTime() + ms);

  /** Another request: reads the product fresh and writes `changes` straight to the store. */
  const anotherUpdate = async (changes: { name?: string; price?: number }): Promise<void> => {
    const current = (await products.inner.findById(widget.id))!;
    await products.inner.update(current.update(changes, clock.now()));
  };

  beforeEach(async () => {
    products = new InterleavingProductRepository();
    clock = new FixedClock(START);
    update = new UpdateProduct(products, clock);
    widget = Product.create({ id: '00000000-0000-4000-8000-000000000001', name: 'Widget', price: 19.99 }, START);
    await products.add(widget);
  });

  describe('partial changes', () => {
    it('sets only the name when only it is given', async () => {
      const result = await update.execute({ id: widget.id, changes: { name: 'Gadget' } });
      expect(result.toProps()).to.deep.include({ name: 'Gadget', price: 19.99 });
      expect(await stored()).to.deep.equal(result.toProps());
    });

    it('sets only the price when only it is given', async () => {
      const result = await update.execute({ id: widget.id, changes: { price: 5 } });
      expect(result.toProps()).to.deep.include({ name: 'Widget', price: 5 });
      expect(await stored()).to.deep.equal(result.toProps());
    });

    it('sets both when both are given, bumps the version and moves only updatedAt', async () => {
      clock.advance(90_000);
      const result = await update.execute({ id: widget.id, changes: { name: 'Gadget', price: 5 } });
      expect(result.toProps()).to.deep.equal({
        id: widget.id,
        name: 'Gadget',
        price: 5,
        version: 2,
        createdAt: START,
        updatedAt: later(90_000),
      });
      expect(await stored()).to.deep.equal(result.toProps());
      expect(products.updateCalls).to.equal(1);
    });

    it('answers the product untouched, with no write, for an empty change', async () => {
      clock.advance(90_000);
      const result = await update.execute({ id: widget.id, changes: {} });
      expect(result.toProps()).to.deep.equal(widget.toProps());
      expect(await stored()).to.deep.equal(widget.toProps());
      expect(products.updateCalls).to.equal(0);
    });

    it('treats fields explicitly set to undefined as an empty change', async () => {
      const result = await update.execute({ id: widget.id, changes: { name: undefined, price: undefined } });
      expect(result.toProps()).to.deep.equal(widget.toProps());
      expect(products.updateCalls).to.equal(0);
    });

    it('lets the last of several sequential updates see all the earlier ones', async () => {
      await update.execute({ id: widget.id, changes: { name: 'Gadget' } });
      await update.execute({ id: widget.id, changes: { price: 1.5 } });
      expect(await stored()).to.deep.include({ name: 'Gadget', price: 1.5, version: 3 });
    });
  });

  describe('validation', () => {
    for (const [label, changes, fields] of [
      ['an empty name', { name: '' }, ['name']],
      ['a price of 0', { price: 0 }, ['price']],
      ['a good name with a negative price', { name: 'Gadget', price: -1 }, ['price']],
      ['a bad name and a bad price', { name: ' x', price: Number.NaN }, ['name', 'price']],
    ] as const) {
      it(`refuses ${label} with VALIDATION_ERROR on ${fields.join(' and ')}, writing nothing`, async () => {
        const error = await rejectionOf(update.execute({ id: widget.id, changes }));
        expect(error).to.be.instanceOf(ValidationError);
        expect((error as ValidationError).fields.map((f) => f.field)).to.deep.equal(fields);
        expect(await stored()).to.deep.equal(widget.toProps());
        expect(products.updateCalls).to.equal(0);
      });
    }
  });

  describe('not found', () => {
    const unknown = '00000000-0000-4000-8000-0000000000ff';

    it('answers NOT_FOUND "Product not found" for an unknown id', async () => {
      const error = await rejectionOf(update.execute({ id: unknown, changes: { price: 5 } }));
      expect(error).to.be.instanceOf(ProductNotFoundError);
      expect(error).to.include({ code: 'NOT_FOUND', message: 'Product not found', detail: `id: ${unknown}` });
      expect(await products.findById(unknown)).to.equal(undefined);
    });

    it('answers NOT_FOUND for an unknown id even with an empty change', async () => {
      const error = await rejectionOf(update.execute({ id: unknown, changes: {} }));
      expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${unknown}` });
    });

    it('answers NOT_FOUND when the product is deleted between the read and the write, and does not recreate it', async () => {
      products.beforeWrite = async () => {
        await products.inner.delete(widget.id);
      };
      const error = await rejectionOf(update.execute({ id: widget.id, changes: { price: 5 } }));
      expect(error).to.be.instanceOf(ProductNotFoundError);
      expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${widget.id}` });
      expect(await products.findById(widget.id)).to.equal(undefined);
    });
  });

  describe('a lost race', () => {
    it('re-applies the change to a fresh read, so both concurrent updates survive', async () => {
      products.beforeWrite = async (attempt) => {
        if (attempt === 1) await anotherUpdate({ price: 42 });
      };
      clock.advance(1_000);

      const result = await update.execute({ id: widget.id, changes: { name: 'Gadget' } });

      expect(result.toProps()).to.deep.include({ name: 'Gadget', price: 42, version: 3 });
      expect(await stored()).to.deep.equal(result.toProps());
      expect(products.updateCalls).to.equal(2);
    });

    it('re-applies its own value of a field both requests changed (it wrote last)', async () => {
      products.beforeWrite = async (attempt) => {
        if (attempt === 1) await anotherUpdate({ price: 42, name: 'Other' });
      };
      const result = await update.execute({ id: widget.id, changes: { price: 7 } });
      expect(await stored()).to.deep.include({ name: 'Other', price: 7, version: 3 });
      expect(result.toProps()).to.deep.equal(await stored());
    });

    it('still succeeds when it loses every attempt but the last (4 losses, 5 attempts)', async () => {
      products.beforeWrite = async (attempt) => {
        if (attempt <= 4) await anotherUpdate({ price: attempt });
      };
      const result = await update.execute({ id: widget.id, changes: { name: 'Gadget' } });
      expect(products.updateCalls).to.equal(5);
      // Four competing writes landed (versions 2–5), then this one (version 6) on top of the last.
      expect(result.toProps()).to.deep.include({ name: 'Gadget', price: 4, version: 6 });
      expect(await stored()).to.deep.equal(result.toProps());
    });

    it('answers CONFLICT (ProductVersionConflictError) after losing every attempt, its change not written', async () => {
      products.beforeWrite = async (attempt) => {
        await anotherUpdate({ price: attempt });
      };
      const error = await rejectionOf(update.execute({ id: widget.id, changes: { name: 'Gadget' } }));
      expect(error).to.be.instanceOf(ProductVersionConflictError);
      expect(error).to.include({ code: 'CONFLICT', detail: `id: ${widget.id}` });
      expect(products.updateCalls).to.equal(5);
      // Every competing write survived; this request's name never landed.
      expect(await stored()).to.deep.include({ name: 'Widget', price: 5, version: 6 });
    });

    it('keeps both of two truly concurrent updates of different fields', async () => {
      // The in-memory store answers asynchronously, so both read version 1 before either writes.
      const results = await Promise.allSettled([
        update.execute({ id: widget.id, changes: { name: 'Gadget' } }),
        update.execute({ id: widget.id, changes: { price: 3 } }),
      ]);
      expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled']);
      expect(products.updateCalls, 'one of them lost the race and wrote again').to.equal(3);
      expect(await stored()).to.deep.include({ name: 'Gadget', price: 3, version: 3 });
    });
  });
});
