import { PRODUCT_PATHS } from '../../../src/adapters/inbound/productUseCases.js';
import { InMemoryProductRepository } from '../../../src/adapters/outbound/memory/InMemoryProductRepository.js';
import { Product } from '../../../src/domain/product/Product.js';
import { ProductNotFoundError, ProductVersionMismatchError } from '../../../src/domain/product/ProductErrors.js';
import { GENERATED_POLICY, type ResourceUnderTest } from '../resource/descriptor.js';
import type { EntityUnderTest } from '../resource/useCases.js';

/** Products as the shared REST, GraphQL and access control suites test them. */
export const productResource: ResourceUnderTest = {
  human: 'Product',
  collection: PRODUCT_PATHS.collection,
  graphql: { type: 'Product', one: 'product', list: 'products' },
  fields: [
    {
      name: 'name',
      graphql: 'name',
      kind: 'string',
      optional: false,
      sortable: true,
      samples: ['Walnut desk', 'Oak chair'],
      invalid: [
        { value: '', message: 'must be 1 to 200 characters' },
        { value: 'x'.repeat(201), message: 'must be 1 to 200 characters' },
        { value: 42, message: 'must be 1 to 200 characters', restOnly: true },
      ],
    },
    {
      name: 'price',
      graphql: 'price',
      kind: 'number',
      optional: false,
      sortable: true,
      samples: [19.99, 5],
      invalid: [
        { value: 0, message: 'must be a number greater than 0' },
        { value: -1, message: 'must be a number greater than 0' },
        { value: '10', message: 'must be a number greater than 0', restOnly: true },
      ],
    },
  ],
  search: 'name',
  policy: GENERATED_POLICY,
};

/** A valid create input of the domain. */
export const productInput = {
  name: 'Walnut desk',
  price: 19.99,
} as const;

/** A product with this id, at version 1. */
export const aProduct = (id: string, now = new Date('2026-01-01T00:00:00Z')): Product =>
  Product.create({ id, ...productInput }, now);

/** An empty in-memory repository of products. */
export async function freshProductRepository(): Promise<InMemoryProductRepository> {
  return new InMemoryProductRepository();
}

/** The entity as the shared domain and use case suites test it. */
export const productEntity: EntityUnderTest<Product> = {
  human: 'Product',
  // The suites pass refused values too, so the inputs are not typed as the entity's.
  create: (input, now) => Product.create(input as never, now),
  update: (product, changes, now) => product.update(changes as never, now),
  requireVersion: (product, versions) => product.requireVersion(versions),
  input: productInput,
  changes: {
    name: 'Oak chair',
    price: 5,
  },
  optional: [],
  invalid: [
    { prop: 'name', field: 'name', value: '', message: 'must be 1 to 200 characters' },
    { prop: 'name', field: 'name', value: 'x'.repeat(201), message: 'must be 1 to 200 characters' },
    { prop: 'price', field: 'price', value: 0, message: 'must be a number greater than 0' },
    { prop: 'price', field: 'price', value: -1, message: 'must be a number greater than 0' },
  ],
  notFound: ProductNotFoundError,
  versionMismatch: ProductVersionMismatchError,
};
