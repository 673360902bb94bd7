import { Product, type ProductFields } from '../../domain/product/Product.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';

/** Creates a product; a ValidationError lists every field that breaks its rule, and nothing is stored. */
export class CreateProduct {
  constructor(
    private readonly products: ProductRepository,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: ProductFields): Promise<Product> {
    const product = Product.create({ ...input, id: this.ids.newId() }, this.clock.now());
    await this.products.add(product);
    return product;
  }
}
