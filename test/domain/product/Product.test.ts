import { expect } from 'chai';
import { Product, type ProductChanges } from '../../../src/domain/product/Product.js';
import { ValidationError } from '../../../src/domain/shared/DomainError.js';
import { productInput } from '../../support/resources/product.js';

const ID = '00000000-0000-4000-8000-000000000001';
const CREATED = new Date('2026-01-01T00:00:00.000Z');
const LATER = new Date('2026-01-02T03:04:05.678Z');

/** The widget's fields as created: the generated valid sample, named and priced for these tests. */
const WIDGET = { ...productInput, name: 'Widget', price: 9.99 };

const aWidget = (): Product => Product.create({ ...WIDGET, id: ID }, CREATED);

/** The ValidationError `action` throws; fails the test when it throws nothing or something else. */
function validationErrorOf(action: () => unknown): ValidationError {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    return error as ValidationError;
  }
  expect.fail('expected a ValidationError, but nothing was thrown');
}

function expectRefusedFields(action: () => unknown, fields: string[]): void {
  const error = validationErrorOf(action);
  expect(error).to.include({ code: 'VALIDATION_ERROR', message: 'validation failed' });
  expect(error.fields.map((f) => f.field)).to.deep.equal(fields);
  for (const field of error.fields) expect(field.message).to.be.a('string').and.not.equal('');
}

const createWithName = (name: string) => () => Product.create({ ...productInput, id: ID, name, price: 1 }, CREATED);
const createWithPrice = (price: number) => () =>
  Product.create({ ...productInput, id: ID, name: 'Widget', price }, CREATED);

describe('Product', () => {
  describe('name (1 to 200 characters, already trimmed)', () => {
    for (const [label, name] of [
      ['one character', 'x'],
      ['200 characters', 'n'.repeat(200)],
      ['200 characters outside the BMP (counted as characters, not UTF-16 units)', '😀'.repeat(200)],
      ['inner spaces', 'Blue  Widget 2000'],
      ['non-ASCII letters', 'Café Ünïcödé'],
    ] as const) {
      it(`accepts ${label}`, () => {
        expect(createWithName(name)().name).to.equal(name);
      });
    }

    for (const [label, name] of [
      ['an empty name', ''],
      ['201 characters', 'n'.repeat(201)],
      ['201 characters outside the BMP', '😀'.repeat(201)],
      ['a leading space', ' Widget'],
      ['a trailing space', 'Widget '],
      ['surrounding tabs and new lines', '\tWidget\n'],
      ['only spaces', '   '],
      ['a lone surrogate', 'p\ud800q'],
      ['a lone low surrogate at the end', 'Widget\udc00'],
      ['a zero-width space', 'Wid\u200bget'],
      ['a right-to-left override', '\u202etegdiW'],
      ['a byte-order mark', 'Widget\ufeff'],
    ] as const) {
      it(`refuses ${label}, naming the field`, () => {
        expectRefusedFields(createWithName(name), ['name']);
      });
    }
  });

  describe('price (finite, greater than 0)', () => {
    for (const price of [0.01, 0.1, 1, 19.99, 1e6, Number.MIN_VALUE, Number.MAX_VALUE]) {
      it(`accepts ${price}`, () => {
        expect(createWithPrice(price)().price).to.equal(price);
      });
    }

    for (const price of [0, -0, -0.01, -10, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      it(`refuses ${Object.is(price, -0) ? '-0' : price}, naming the field`, () => {
        expectRefusedFields(createWithPrice(price), ['price']);
      });
    }

    it('refuses a price that is not a number at all (a string smuggled past the types)', () => {
      expectRefusedFields(createWithPrice('10' as unknown as number), ['price']);
    });
  });

  describe('create', () => {
    it('starts at version 1 with createdAt = updatedAt = now', () => {
      const product = aWidget();
      expect(product.toProps()).to.deep.equal({
        ...WIDGET,
        id: ID,
        version: 1,
        createdAt: CREATED,
        updatedAt: CREATED,
      });
      expect(product.createdAt.getTime()).to.equal(CREATED.getTime());
      expect(product.updatedAt.getTime()).to.equal(CREATED.getTime());
    });

    it('lists every failing field at once', () => {
      expectRefusedFields(
        () => Product.create({ ...productInput, id: ID, name: '', price: 0 }, CREATED),
        ['name', 'price'],
      );
    });
  });

  describe('update', () => {
    it('sets only the name when only the name is given', () => {
      const updated = aWidget().update({ name: 'Gadget' }, LATER);
      expect(updated.toProps()).to.deep.equal({
        ...WIDGET,
        id: ID,
        name: 'Gadget',
        price: 9.99,
        version: 2,
        createdAt: CREATED,
        updatedAt: LATER,
      });
    });

    it('sets only the price when only the price is given', () => {
      const updated = aWidget().update({ price: 12.5 }, LATER);
      expect(updated.toProps()).to.deep.equal({
        ...WIDGET,
        id: ID,
        name: 'Widget',
        price: 12.5,
        version: 2,
        createdAt: CREATED,
        updatedAt: LATER,
      });
    });

    it('sets both when both are given', () => {
      const updated = aWidget().update({ name: 'Gadget', price: 12.5 }, LATER);
      expect(updated.toProps()).to.deep.include({ name: 'Gadget', price: 12.5, version: 2 });
    });

    it('treats a field explicitly set to undefined as absent', () => {
      const updated = aWidget().update({ name: undefined, price: 3 }, LATER);
      expect(updated.toProps()).to.deep.include({ name: 'Widget', price: 3 });
    });

    it('bumps the version by one per change and moves updatedAt, never the id or createdAt', () => {
      const third = new Date(LATER.getTime() + 60_000);
      const twice = aWidget().update({ price: 1 }, LATER).update({ name: 'Gadget' }, third);
      expect(twice.id).to.equal(ID);
      expect(twice.version).to.equal(3);
      expect(twice.createdAt.getTime()).to.equal(CREATED.getTime());
      expect(twice.updatedAt.getTime()).to.equal(third.getTime());
    });

    const invalid: [string, ProductChanges, string[]][] = [
      ['an empty name', { name: '' }, ['name']],
      ['a 201-character name', { name: 'n'.repeat(201) }, ['name']],
      ['a name with surrounding spaces', { name: ' Gadget ' }, ['name']],
      ['a price of 0', { price: 0 }, ['price']],
      ['a negative price', { price: -5 }, ['price']],
      ['a NaN price', { price: Number.NaN }, ['price']],
      ['an infinite price', { price: Number.POSITIVE_INFINITY }, ['price']],
      ['a bad name and a bad price', { name: '', price: 0 }, ['name', 'price']],
      ['a bad price next to a good name', { name: 'Gadget', price: 0 }, ['price']],
    ];
    for (const [label, changes, fields] of invalid) {
      it(`refuses ${label} with a ValidationError naming ${fields.join(' and ')}`, () => {
        expectRefusedFields(() => aWidget().update(changes, LATER), fields);
      });
    }
  });

  describe('immutability', () => {
    it('leaves the original unchanged by an update', () => {
      const original = aWidget();
      const before = original.toProps();
      original.update({ name: 'Gadget', price: 1 }, LATER);
      expect(original.toProps()).to.deep.equal(before);
      expect(original.version).to.equal(1);
    });

    it('leaves the original unchanged by a refused update', () => {
      const original = aWidget();
      const before = original.toProps();
      validationErrorOf(() => original.update({ name: 'Gadget', price: 0 }, LATER));
      expect(original.toProps()).to.deep.equal(before);
    });

    it('hands out a copy of its props, so changing the copy changes nothing', () => {
      const original = aWidget();
      const props = original.toProps() as { name: string; version: number };
      props.name = 'Hacked';
      props.version = 99;
      expect(original.name).to.equal('Widget');
      expect(original.version).to.equal(1);
    });
  });

  describe('restore', () => {
    it('rebuilds a stored product exactly, at its stored version', () => {
      const props = {
        ...productInput,
        id: ID,
        name: 'Widget',
        price: 0.1,
        version: 7,
        createdAt: CREATED,
        updatedAt: LATER,
      };
      expect(Product.restore(props).toProps()).to.deep.equal(props);
    });
  });
});
