import type { InMemoryResourceRepository } from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import { memoryRepositoryOf } from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import type { PRODUCT } from '../../../src/domain/product/Product.js';
import { Product, type ProductFields, type ProductProps } from '../../../src/domain/product/Product.js';
import type { ListQuery } from '../../../src/domain/shared/Page.js';
import type { SortFieldOf } from '../../../src/domain/shared/resource.js';
import { entityUnderTest, inputOf, resourceUnderTest } from '../resource/declared.js';
import type { ResourceUnderTest } from '../resource/descriptor.js';
import type { EntityUnderTest } from '../resource/useCases.js';

/** Products as the shared REST, GraphQL and access control suites test them (read from the declaration). */
export const productResource: ResourceUnderTest = resourceUnderTest(Product);

/** A valid create input of the domain: every field at its first sample (a defaulted one too, so it also makes stored rows). */
export const productInput = inputOf(Product) as Required<ProductFields>;

/** A product with this id, at version 1. */
export const aProduct = (id: string, now = new Date('2026-01-01T00:00:00Z')): Product =>
  Product.create({ id, ...productInput }, now);

/** The sort keys of products (JSON names). */
export type ProductSortField = SortFieldOf<typeof PRODUCT.fields>;
/** A page of products, as the generic list and search use cases take it. */
export type ProductListQuery = ListQuery<ProductSortField>;

/** Products in memory (the shared memory core). */
export type ProductRows = InMemoryResourceRepository<Product, ProductProps, ProductSortField>;

/** An empty in-memory repository of products. */
export const productRows = (): ProductRows => memoryRepositoryOf(Product);

/** An empty in-memory repository of products. */
export async function freshProductRepository(): Promise<ProductRows> {
  return productRows();
}

/** The entity as the shared domain and use case suites test it. */
export const productEntity = entityUnderTest(Product) as unknown as EntityUnderTest<Product>;
