import type { Page, PageRequest } from '../shared/Page.js';
import type { Product } from './Product.js';

export type ProductSortField = 'name' | 'price' | 'created_at' | 'updated_at';

/** A page of products; with `q`, only those whose name contains it (case-insensitive). */
export interface ProductListQuery extends PageRequest<ProductSortField> {
  readonly q?: string;
}

/**
 * Where products live. Promises: `update` writes only if the stored version is the one the
 * product was read at (`product.version - 1`), else rejects with ProductVersionConflictError —
 * never a silent lost write; an unknown id rejects with ProductNotFoundError; lists are sorted by
 * the field, then by id, so pages never repeat or skip a row.
 */
export interface ProductRepository {
  add(product: Product): Promise<void>;
  findById(id: string): Promise<Product | undefined>;
  update(product: Product): Promise<void>;
  /** `true` when a product was deleted. */
  delete(id: string): Promise<boolean>;
  list(query: ProductListQuery): Promise<Page<Product>>;
}
