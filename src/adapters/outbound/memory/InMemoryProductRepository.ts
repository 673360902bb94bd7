import { PRODUCT, Product, type ProductProps } from '../../../domain/product/Product.js';
import { ProductStillReferencedError } from '../../../domain/product/ProductErrors.js';
import type { ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
import { InMemoryResourceRepository } from './InMemoryResourceRepository.js';

/** Products in a Map, with the same atomic updates and ordering as the SQL adapter. */
export class InMemoryProductRepository
  extends InMemoryResourceRepository<Product, ProductProps, ProductSortField>
  implements ProductRepository
{
  constructor() {
    super({
      fromRow: (props) => Product.restore(props),
      toRow: (product) => product.toProps(),
      declaration: PRODUCT,
      stillReferenced: (id) => new ProductStillReferencedError(id),
    });
  }
}
