import { Product, type ProductProps } from '../../../domain/product/Product.js';
import type { ProductChange, ProductListQuery, ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
import type { Page } from '../../../domain/shared/Page.js';
import { pageOf } from './sorting.js';

const SORT: Record<ProductSortField, (p: ProductProps) => string | number | Date> = {
  name: (p) => p.name,
  price: (p) => p.price,
  created_at: (p) => p.createdAt,
  updated_at: (p) => p.updatedAt,
};

/** Products in a Map, with the same atomic updates and ordering as the SQL adapter. */
export class InMemoryProductRepository implements ProductRepository {
  private readonly rows = new Map<string, ProductProps>();

  async add(product: Product): Promise<void> {
    this.rows.set(product.id, product.toProps());
  }

  async findById(id: string): Promise<Product | undefined> {
    const row = this.rows.get(id);
    return row ? Product.restore(row) : undefined;
  }

  /** Atomic because nothing is awaited between the read and the write. */
  async update(id: string, change: ProductChange): Promise<Product | undefined> {
    const stored = this.rows.get(id);
    if (!stored) return undefined;
    const current = Product.restore(stored);
    const next = change(current);
    if (next !== current) this.rows.set(id, next.toProps());
    return next;
  }

  async delete(id: string, onlyAtVersions?: readonly number[]): Promise<boolean> {
    const stored = this.rows.get(id);
    if (!stored || (onlyAtVersions !== undefined && !onlyAtVersions.includes(stored.version))) return false;
    return this.rows.delete(id);
  }

  async list(query: ProductListQuery): Promise<Page<Product>> {
    const needle = query.q?.toLowerCase();
    const matching = [...this.rows.values()].filter((p) => !needle || p.name.toLowerCase().includes(needle));
    return pageOf(matching, query, SORT, (row) => Product.restore(row));
  }
}
