import { Product, type ProductProps } from '../../../domain/product/Product.js';
import type { ProductRepository, ProductSortField } from '../../../domain/product/ProductRepository.js';
import { ConflictError } from '../../../domain/shared/DomainError.js';
import { InMemoryResourceRepository } from './InMemoryResourceRepository.js';

/** Products in a Map, with the same atomic updates and ordering as the SQL adapter. */
export class InMemoryProductRepository extends InMemoryResourceRepository<Product, ProductProps, ProductSortField> implements ProductRepository {
  constructor() {
    super({
      fromRow: (props) => Product.restore(props),
      toRow: (product) => product.toProps(),
      search: 'name',
      stillReferenced: (id) => new ConflictError('Product is still referenced', `id: ${id}`),
    });
  }
}
