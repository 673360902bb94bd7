import type { Product, ProductProps } from '../../../domain/product/Product.js';
import type { ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
import type { Database } from './database.js';
import { PRODUCT_TABLE } from './schemas/ProductSchema.js';
import { SqlResourceRepository } from './SqlResourceRepository.js';

/** Products in SQLite or PostgreSQL: the `products` table on the shared resource core. */
export class SqlProductRepository
  extends SqlResourceRepository<Product, ProductProps, ProductSortField>
  implements ProductRepository
{
  constructor(database: Database) {
    super(database, PRODUCT_TABLE);
  }
}
