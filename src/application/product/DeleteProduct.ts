import { ProductNotFoundError } from '../../domain/product/ProductErrors.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';

/** Deletes a product; ProductNotFoundError when unknown. */
export class DeleteProduct {
  constructor(private readonly products: ProductRepository) {}

  async execute(input: { readonly id: string }): Promise<void> {
    if (!(await this.products.delete(input.id))) throw new ProductNotFoundError(input.id);
  }
}
