import { Product } from '../../domain/product/Product.js';
import type { ProductRepository } from '../../domain/product/ProductRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';

/** Creates a product from a valid name and price. */
export class CreateProduct {
  constructor(
    private readonly products: ProductRepository,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly name: string; readonly price: number }): Promise<Product> {
    const product = Product.create({ id: this.ids.newId(), name: input.name, price: input.price }, this.clock.now());
    await this.products.add(product);
    return product;
  }
}
