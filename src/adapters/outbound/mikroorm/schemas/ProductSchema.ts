import { Product, type ProductProps } from '../../../../domain/product/Product.js';
import { ProductStillReferencedError } from '../../../../domain/product/ProductErrors.js';
import {
  PRODUCT_SEARCH_FIELD,
  PRODUCT_SORT_FIELDS,
  type ProductSortField,
} from '../../../../domain/product/ProductRepository.js';
import type { ResourceTable } from '../resourceTable.js';

/** The `products` table as its repository sees it, with the one product mapper (props ↔ Product). */
export const PRODUCT_TABLE: ResourceTable<Product, ProductProps, ProductSortField> = {
  table: 'products',
  columns: {
    name: { kind: 'string', length: 200 },
    price: { kind: 'number' },
  },
  sortable: PRODUCT_SORT_FIELDS,
  search: PRODUCT_SEARCH_FIELD,
  fromRow: (props) => Product.restore(props),
  toRow: (product) => product.toProps(),
  stillReferenced: (id) => new ProductStillReferencedError(id),
};
