import type { Product } from '../../domain/product/Product.js';
import type { ProductListQuery, ProductRepository } from '../../domain/product/ProductRepository.js';
import type { Page } from '../../domain/shared/Page.js';

/** A page of products, sorted, ties broken by id. */
export class ListProducts {
  constructor(private readonly products: ProductRepository) {}

  execute(query: Omit<ProductListQuery, 'q'>): Promise<Page<Product>> {
    return this.products.list({ page: query.page, perPage: query.perPage, sort: query.sort, order: query.order });
  }
}
