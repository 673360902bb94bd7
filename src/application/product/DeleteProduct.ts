import { ProductNotFoundError, ProductVersionMismatchError } from '../../domain/product/ProductErrors.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';

/**
 * Deletes a product; ProductNotFoundError when unknown. With `expectedVersions` (an `If-Match`)
 * the delete is conditional, in one statement: a product at another version answers
 * ProductVersionMismatchError and stays. A product another resource still references stays: ConflictError.
 */
export class DeleteProduct {
  constructor(private readonly products: ProductRepository) {}

  async execute(input: { readonly id: string; readonly expectedVersions?: readonly number[] }): Promise<void> {
    if (await this.products.delete(input.id, input.expectedVersions)) return;
    if (input.expectedVersions !== undefined && (await this.products.findById(input.id))) {
      throw new ProductVersionMismatchError(input.id);
    }
    throw new ProductNotFoundError(input.id);
  }
}
