import type { Page, PageRequest } from '../shared/Page.js';
import type { SortFieldOf } from '../shared/resource.js';
import { PRODUCT, type Product } from './Product.js';

/** The fields a list of products can be sorted by (JSON names; GraphQL takes them in camel case). */
export const PRODUCT_SORT_FIELDS = PRODUCT.sortFields;
export type ProductSortField = SortFieldOf<typeof PRODUCT.fields>;

/** A page of products; with `q`, only those whose name contains it (case-insensitive). */
export interface ProductListQuery extends PageRequest<ProductSortField> {
  readonly q?: string;
}

/**
 * Works out the next state of a stored product from its current one. Synchronous and free of I/O:
 * it runs while the product is locked. Returning `current` itself writes nothing; throwing writes
 * nothing and rejects the update with what was thrown.
 */
export type ProductChange = (current: Product) => Product;

/**
 * Where products live. Promises: `update` is an atomic read-modify-write — no other update or
 * delete of the same product lands between the read `change` is given and the write of what it
 * returns, so concurrent updates never lose a write and never fail for having raced; lists are
 * sorted by the field, then by id, so pages never repeat or skip a row.
 */
export interface ProductRepository {
  add(product: Product): Promise<void>;
  findById(id: string): Promise<Product | undefined>;
  /** Applies `change` to the stored product and answers what is stored after it; `undefined` for an unknown id. */
  update(id: string, change: ProductChange): Promise<Product | undefined>;
  /**
   * `true` when a product was deleted. With `onlyAtVersions`, it is deleted only if its stored
   * version is one of them (checked in the same statement), else nothing is deleted. A product
   * another resource still references is not deleted: ConflictError.
   */
  delete(id: string, onlyAtVersions?: readonly number[]): Promise<boolean>;
  list(query: ProductListQuery): Promise<Page<Product>>;
  /** The products with these ids (an unknown id is left out), in one read whatever their number. */
  findByIds(ids: readonly string[]): Promise<readonly Product[]>;
}
