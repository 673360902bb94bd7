import type { Product } from '../../domain/product/Product.js';
import { ProductNotFoundError } from '../../domain/product/ProductErrors.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';

/** One product by id; ProductNotFoundError when unknown. */
export class GetProduct {
  constructor(private readonly products: ProductRepository) {}

  async execute(input: { readonly id: string }): Promise<Product> {
    const product = await this.products.findById(input.id);
    if (!product) throw new ProductNotFoundError(input.id);
    return product;
  }
}
