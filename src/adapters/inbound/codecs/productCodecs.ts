import { priceViolation, productNameViolation } from '../../../domain/product/Product.js';
import type { ProductSortField } from '../../../domain/product/ProductRepository.js';
import { optional, required, rule } from './fields.js';

/** 1 to 200 characters once trimmed. */
export const ProductNameField = rule('must be 1 to 200 characters', (u) => {
  if (typeof u !== 'string') return undefined;
  const name = u.trim();
  return productNameViolation(name) === undefined ? name : undefined;
});

/** A JSON number, finite and greater than 0 (a string such as "10" is refused). */
export const PriceField = rule('must be a number greater than 0', (u) =>
  typeof u === 'number' && priceViolation(u) === undefined ? u : undefined,
);

export const CreateProductBody = { name: required(ProductNameField), price: required(PriceField) };
export const UpdateProductBody = { name: optional(ProductNameField), price: optional(PriceField) };

export const PRODUCT_SORTS: readonly ProductSortField[] = ['name', 'price', 'created_at', 'updated_at'];
