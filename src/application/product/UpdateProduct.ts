import type { Product, ProductChanges } from '../../domain/product/Product.js';
import { ProductNotFoundError } from '../../domain/product/ProductErrors.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';
import type { Clock } from '../ports/Clock.js';

/**
 * Partial update: absent fields stay, present ones are validated and set, and the version is
 * bumped. The change is applied by the repository as one atomic read-modify-write, so concurrent
 * updates all succeed and each field keeps its last write. With `expectedVersions` (an `If-Match`)
 * the update is conditional: a product at another version answers ProductVersionMismatchError and
 * is left as it is. An empty change returns the product untouched (after the same check). A value
 * that breaks its field's rule is a ValidationError; ProductNotFoundError when unknown.
 */
export class UpdateProduct {
  constructor(
    private readonly products: ProductRepository,
    private readonly clock: Clock,
  ) {}

  async execute(input: {
    readonly id: string;
    readonly changes: ProductChanges;
    /** The versions the caller accepts the product to be at; absent: any. */
    readonly expectedVersions?: readonly number[];
  }): Promise<Product> {
    const { id, changes, expectedVersions } = input;
    if (Object.values(changes).every((value) => value === undefined)) {
      const current = await this.products.findById(id);
      if (!current) throw new ProductNotFoundError(id);
      current.requireVersion(expectedVersions);
      return current;
    }
    const updated = await this.products.update(id, (current) => {
      current.requireVersion(expectedVersions);
      // Read under the lock, so `updatedAt` grows with the version.
      return current.update(changes, this.clock.now());
    });
    if (!updated) throw new ProductNotFoundError(id);
    return updated;
  }
}
