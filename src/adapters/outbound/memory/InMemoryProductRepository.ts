import { Product, type ProductProps } from '../../../domain/product/Product.js';
import { ProductNotFoundError, ProductVersionConflictError } from '../../../domain/product/ProductErrors.js';
import type { ProductListQuery, ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
import type { Page } from '../../../domain/shared/Page.js';
import { pageOf } from './sorting.js';

const SORT: Record<ProductSortField, (p: ProductProps) => string | number | Date> = {
  name: (p) => p.name,
  price: (p) => p.price,
  created_at: (p) => p.createdAt,
  updated_at: (p) => p.updatedAt,
};

/** Products in a Map, with the same optimistic locking and ordering as the SQL adapter. */
export class InMemoryProductRepository implements ProductRepository {
  private readonly rows = new Map<string, ProductProps>();

  async add(product: Product): Promise<void> {
    this.rows.set(product.id, product.toProps());
  }

  async findById(id: string): Promise<Product | undefined> {
    const row = this.rows.get(id);
    return row ? Product.restore(row) : undefined;
  }

  async update(product: Product): Promise<void> {
    const stored = this.rows.get(product.id);
    if (!stored) throw new ProductNotFoundError(product.id);
    if (stored.version !== product.version - 1) throw new ProductVersionConflictError(product.id);
    this.rows.set(product.id, product.toProps());
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async list(query: ProductListQuery): Promise<Page<Product>> {
    const needle = query.q?.toLowerCase();
    const matching = [...this.rows.values()].filter((p) => !needle || p.name.toLowerCase().includes(needle));
    return pageOf(matching, query, SORT, (row) => Product.restore(row));
  }
}
