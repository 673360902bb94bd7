import { expect } from 'chai';
import { UpdateResource } from '../../../src/application/resources/UpdateResource.js';
import { Product, type ProductChanges } from '../../../src/domain/product/Product.js';
import { NotFoundError, PreconditionFailedError } from '../../../src/domain/shared/DomainError.js';
import type { ResourceChange, ResourceRepository } from '../../../src/domain/shared/ResourceRepository.js';
import type { ProductListQuery, ProductSortField } from '../../support/resources/productCatalogue.js';
import { ValidationError } from '../../../src/domain/shared/DomainError.js';
import type { Page } from '../../../src/domain/shared/Page.js';
import { FixedClock } from '../../support/FixedClock.js';
import { productInput, productRows } from '../../support/resources/product.js';
import { rejectionOf, START } from '../world.js';

/**
 * The in-memory repository, counting updates, with a hook that runs (and is awaited) at the start
 * of every `update`, before the product is read and locked: time can pass, or another request land.
 */
class ObservedProductRepository implements ResourceRepository<Product, ProductSortField> {
  readonly inner = productRows();
  updateCalls = 0;
  beforeUpdate: (() => Promise<void>) | undefined;

  add(product: Product): Promise<void> {
    return this.inner.add(product);
  }
  findById(id: string): Promise<Product | undefined> {
    return this.inner.findById(id);
  }
  async update(id: string, change: ResourceChange<Product>): Promise<Product | undefined> {
    this.updateCalls += 1;
    await this.beforeUpdate?.();
    return this.inner.update(id, change);
  }
  delete(id: string, onlyAtVersions?: readonly number[]): Promise<boolean> {
    return this.inner.delete(id, onlyAtVersions);
  }
  list(query: ProductListQuery): Promise<Page<Product>> {
    return this.inner.list(query);
  }
  findByIds(ids: readonly string[]): Promise<readonly Product[]> {
    return this.inner.findByIds(ids);
  }
  listByReference(field: string, ids: readonly string[], query: ProductListQuery) {
    return this.inner.listByReference(field, ids, query);
  }
}

describe('UpdateResource (over products)', () => {
  let products: ObservedProductRepository;
  let clock: FixedClock;
  let update: UpdateResource<Product, ProductChanges>;
  let widget: Product;

  /** The widget's fields as created: the generated valid sample, named and priced for these tests. */
  const WIDGET = { ...productInput, name: 'Widget', price: 19.99 };
  const stored = async (id = widget.id) => (await products.findById(id))!.toProps();
  const later = (ms: number) => new Date(START.getTime() + ms);

  beforeEach(async () => {
    products = new ObservedProductRepository();
    clock = new FixedClock(START);
    update = new UpdateResource({ rows: products, errors: Product.errors, clock });
    widget = Product.create({ ...WIDGET, id: '00000000-0000-4000-8000-000000000001' }, START);
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
        ...WIDGET,
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
      });
    }
  });

  describe('not found', () => {
    const unknown = '00000000-0000-4000-8000-0000000000ff';

    it('answers NOT_FOUND "Product not found" for an unknown id', async () => {
      const error = await rejectionOf(update.execute({ id: unknown, changes: { price: 5 } }));
      expect(error).to.be.instanceOf(NotFoundError);
      expect(error).to.include({ code: 'NOT_FOUND', message: 'Product not found', detail: `id: ${unknown}` });
      expect(await products.findById(unknown)).to.equal(undefined);
    });

    it('answers NOT_FOUND for an unknown id even with an empty change', async () => {
      const error = await rejectionOf(update.execute({ id: unknown, changes: {} }));
      expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${unknown}` });
    });

    it('answers NOT_FOUND when the product is deleted just before the update, and does not recreate it', async () => {
      products.beforeUpdate = async () => {
        await products.inner.delete(widget.id);
      };
      const error = await rejectionOf(update.execute({ id: widget.id, changes: { price: 5 } }));
      expect(error).to.be.instanceOf(NotFoundError);
      expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${widget.id}` });
      expect(await products.findById(widget.id)).to.equal(undefined);
    });

    it('answers NOT_FOUND for an unknown id before looking at the expected version', async () => {
      const error = await rejectionOf(update.execute({ id: unknown, changes: { price: 5 }, expectedVersions: [1] }));
      expect(error).to.be.instanceOf(NotFoundError);
    });
  });

  describe('conditional (expected versions, an If-Match)', () => {
    it('updates when the product is at an expected version', async () => {
      const result = await update.execute({ id: widget.id, changes: { price: 5 }, expectedVersions: [7, 1] });
      expect(result.toProps()).to.deep.include({ price: 5, version: 2 });
      expect(await stored()).to.deep.equal(result.toProps());
    });

    for (const [label, expectedVersions] of [
      ['an older version', [0]],
      ['a version ahead of it', [2]],
      ['no version at all (only weak tags were sent)', []],
    ] as const) {
      it(`answers PRECONDITION_FAILED (PreconditionFailedError) for ${label}, writing nothing`, async () => {
        const error = await rejectionOf(
          update.execute({ id: widget.id, changes: { name: 'Gadget' }, expectedVersions }),
        );
        expect(error).to.be.instanceOf(PreconditionFailedError);
        expect(error).to.include({ code: 'PRECONDITION_FAILED', detail: `id: ${widget.id}` });
        expect(await stored()).to.deep.equal(widget.toProps());
      });
    }

    it('checks the version the product has when it is locked, not an earlier read', async () => {
      products.beforeUpdate = async () => {
        products.beforeUpdate = undefined;
        await update.execute({ id: widget.id, changes: { price: 42 } });
      };
      const error = await rejectionOf(
        update.execute({ id: widget.id, changes: { name: 'Gadget' }, expectedVersions: [1] }),
      );
      expect(error).to.be.instanceOf(PreconditionFailedError);
      expect(await stored()).to.deep.include({ name: 'Widget', price: 42, version: 2 });
    });

    it('checks the version for an empty change too, and answers the product untouched when it matches', async () => {
      expect((await update.execute({ id: widget.id, changes: {}, expectedVersions: [1] })).toProps()).to.deep.equal(
        widget.toProps(),
      );
      const error = await rejectionOf(update.execute({ id: widget.id, changes: {}, expectedVersions: [2] }));
      expect(error).to.be.instanceOf(PreconditionFailedError);
      expect(products.updateCalls).to.equal(0);
    });

    it('lets exactly one of several concurrent updates expecting the same version win', async () => {
      const results = await Promise.allSettled(
        [1, 2, 3, 4].map((n) => update.execute({ id: widget.id, changes: { price: n }, expectedVersions: [1] })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).to.be.instanceOf(PreconditionFailedError);
      expect((await stored()).version).to.equal(2);
    });
  });

  describe('concurrent updates (no expected version)', () => {
    it('applies each change on top of the product as stored when its turn comes: both of two concurrent updates survive', async () => {
      products.beforeUpdate = async () => {
        products.beforeUpdate = undefined;
        await update.execute({ id: widget.id, changes: { price: 42 } });
      };
      const result = await update.execute({ id: widget.id, changes: { name: 'Gadget' } });
      expect(result.toProps()).to.deep.include({ name: 'Gadget', price: 42, version: 3 });
      expect(await stored()).to.deep.equal(result.toProps());
    });

    it('takes updatedAt when its turn comes, so it grows with the version', async () => {
      products.beforeUpdate = async () => {
        clock.advance(5_000);
      };
      const result = await update.execute({ id: widget.id, changes: { price: 3 } });
      expect(result.updatedAt).to.deep.equal(later(5_000));
    });

    it('lets 20 truly concurrent updates of different fields all succeed, each field keeping its last write', async () => {
      const changes = Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? { name: `Name ${n}` } : { price: n }));
      const results = await Promise.all(changes.map((c) => update.execute({ id: widget.id, changes: c })));
      expect(results.map((r) => r.version).sort((a, b) => a - b)).to.deep.equal(
        Array.from({ length: 20 }, (_, n) => n + 2),
      );
      const last = results.reduce((a, b) => (a.version > b.version ? a : b));
      expect(await stored()).to.deep.equal(last.toProps());
      expect(await stored()).to.deep.include({ name: 'Name 18', price: 19, version: 21 });
    });
  });
});
