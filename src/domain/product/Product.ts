import { declareResource, entityOf, field, type Changes, type CreateInput, type PropsOf } from '../shared/resource.js';

/** The product resource, declared once: everything else about its fields is derived from this. */
export const PRODUCT = declareResource({
  name: 'product',
  plural: 'products',
  fields: {
    name: field.string(1, 200),
    price: field.number({ min: 0, minExclusive: true }),
  },
  search: 'name',
});

type Fields = typeof PRODUCT.fields;
/** The fields a client sets: every one on create, any of them on update. */
export type ProductFields = CreateInput<Fields>;
/** A partial change: an absent field stays as it is. */
export type ProductChanges = Changes<Fields>;
export type ProductProps = PropsOf<Fields>;

/** A product. Immutable; every change bumps the version. */
export class Product extends entityOf(PRODUCT) {}
