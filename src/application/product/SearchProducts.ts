import type { Product } from '../../domain/product/Product.js';
import type { ProductListQuery, ProductRepository } from '../../domain/product/ProductRepository.js';
import type { Page } from '../../domain/shared/Page.js';

/** A page of the products whose name contains `q`, case-insensitive. */
export class SearchProducts {
  constructor(private readonly products: ProductRepository) {}

  execute(query: ProductListQuery & { readonly q: string }): Promise<Page<Product>> {
    return this.products.list(query);
  }
}
