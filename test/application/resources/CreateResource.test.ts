import { expect } from 'chai';
import { Product, type ProductFields } from '../../../src/domain/product/Product.js';
import { CreateResource } from '../../../src/application/resources/CreateResource.js';
import { ValidationError } from '../../../src/domain/shared/DomainError.js';
import { FixedClock } from '../../support/FixedClock.js';
import { productInput, productRows, type ProductRows } from '../../support/resources/product.js';
import { SequentialIds } from '../../support/SequentialIds.js';
import { rejectionOf, START } from '../world.js';

describe('CreateResource (over products)', () => {
  let products: ProductRows;
  let clock: FixedClock;
  let ids: SequentialIds;
  let create: CreateResource<Product, ProductFields>;

  const everything = async () =>
    (await products.list({ page: 1, perPage: 100, sort: 'created_at', order: 'asc' })).items;

  beforeEach(() => {
    products = productRows();
    clock = new FixedClock(START);
    ids = new SequentialIds();
    create = new CreateResource<Product, ProductFields>({ entity: Product, rows: products, ids, clock });
  });

  it('stores a product with a new id, version 1 and createdAt = updatedAt = now', async () => {
    clock.advance(5_000);
    const input = { ...productInput, name: 'Widget', price: 19.99 };
    const product = await create.execute(input);

    const now = new Date(START.getTime() + 5_000);
    expect(product.toProps()).to.deep.equal({
      ...input,
      id: '00000000-0000-4000-8000-000000000001',
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    expect((await products.findById(product.id))?.toProps()).to.deep.equal(product.toProps());
  });

  it('gives every product its own id', async () => {
    const first = await create.execute({ ...productInput, name: 'Widget', price: 1 });
    const second = await create.execute({ ...productInput, name: 'Widget', price: 1 });
    expect(first.id).to.not.equal(second.id);
    expect((await everything()).map((p) => p.id)).to.have.members([first.id, second.id]);
  });

  for (const [label, input, fields] of [
    ['an empty name', { ...productInput, name: '', price: 1 }, ['name']],
    [
      'an untrimmed name (the inbound codec trims; the domain refuses)',
      { ...productInput, name: ' Widget ', price: 1 },
      ['name'],
    ],
    ['a 201-character name', { ...productInput, name: 'n'.repeat(201), price: 1 }, ['name']],
    ['a price of 0', { ...productInput, name: 'Widget', price: 0 }, ['price']],
    ['a negative price', { ...productInput, name: 'Widget', price: -1 }, ['price']],
    ['a NaN price', { ...productInput, name: 'Widget', price: Number.NaN }, ['price']],
    ['an infinite price', { ...productInput, name: 'Widget', price: Number.POSITIVE_INFINITY }, ['price']],
    ['a bad name and a bad price', { ...productInput, name: '', price: 0 }, ['name', 'price']],
  ] as const) {
    it(`refuses ${label} with VALIDATION_ERROR on ${fields.join(' and ')}, storing nothing`, async () => {
      const error = await rejectionOf(create.execute(input));
      expect(error).to.be.instanceOf(ValidationError);
      expect(error).to.include({ code: 'VALIDATION_ERROR' });
      expect((error as ValidationError).fields.map((f) => f.field)).to.deep.equal(fields);
      expect(await everything()).to.deep.equal([]);
    });
  }
});
