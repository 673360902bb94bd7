import type { Product, ProductChanges } from '../../domain/product/Product.js';
import { ProductNotFoundError, ProductVersionConflictError } from '../../domain/product/ProductErrors.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';
import type { Clock } from '../ports/Clock.js';

/** How many times a partial update is re-applied on a fresh read after losing a race. */
const ATTEMPTS = 5;

/**
 * Partial update: absent fields stay, present ones are validated and set. The write is
 * optimistic: if another update landed in between, the change is re-applied to the fresh
 * product (both writes survive); after repeated losses it answers ProductVersionConflictError.
 * An empty change returns the product untouched.
 */
export class UpdateProduct {
  constructor(
    private readonly products: ProductRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly id: string; readonly changes: ProductChanges }): Promise<Product> {
    for (let attempt = 1; ; attempt += 1) {
      const current = await this.products.findById(input.id);
      if (!current) throw new ProductNotFoundError(input.id);
      if (input.changes.name === undefined && input.changes.price === undefined) return current;
      const updated = current.update(input.changes, this.clock.now());
      try {
        await this.products.update(updated);
        return updated;
      } catch (error) {
        if (!(error instanceof ProductVersionConflictError) || attempt >= ATTEMPTS) throw error;
      }
    }
  }
}
