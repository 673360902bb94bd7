import { EntitySchema } from '@mikro-orm/core';

/** The `products` row. */
export interface ProductRow {
  id: string;
  name: string;
  price: number;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

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
