import { EntitySchema } from '@mikro-orm/core';
import { Product, type ProductProps } from '../../../../domain/product/Product.js';
import { ProductStillReferencedError } from '../../../../domain/product/ProductErrors.js';
import {
  PRODUCT_SEARCH_FIELD,
  PRODUCT_SORT_FIELDS,
  type ProductSortField,
} from '../../../../domain/product/ProductRepository.js';
import type { ResourceTable } from '../resourceTable.js';

/** The `products` row. */
export type ProductRow = ProductProps;

export const ProductSchema = new EntitySchema<ProductRow>({
  name: 'ProductRow',
  tableName: 'products',
  properties: {
    id: { type: 'string', primary: true, length: 36 },
    name: { type: 'string', length: 200 },
    price: { type: 'double' },
    version: { type: 'integer' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

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
