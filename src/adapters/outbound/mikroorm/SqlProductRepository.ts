import { Product, type ProductProps } from '../../../domain/product/Product.js';
import { ProductStillReferencedError } from '../../../domain/product/ProductErrors.js';
import type { ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
import type { Database } from './database.js';
import { tableOf } from './resourceTable.js';
import { SqlResourceRepository } from './SqlResourceRepository.js';

/** The `products` table as its repository sees it, derived from the product's declaration. */
export const PRODUCT_TABLE = tableOf(Product, (id) => new ProductStillReferencedError(id));

/** Products in SQLite or PostgreSQL: the `products` table on the shared resource core. */
export class SqlProductRepository
  extends SqlResourceRepository<Product, ProductProps, ProductSortField>
  implements ProductRepository
{
  constructor(database: Database) {
    super(database, PRODUCT_TABLE);
  }
}
