import { PRODUCT_FIELD_RULES } from '../../../domain/product/Product.js';
import { numberField, optional, required, stringField } from './fields.js';

/** 1 to 200 characters once trimmed, none of them invisible (looked for before trimming). */
export const ProductNameField = stringField(PRODUCT_FIELD_RULES.name);

/** A JSON number, finite and greater than 0 (a string such as "10" is refused). */
export const ProductPriceField = numberField(PRODUCT_FIELD_RULES.price);

export const CreateProductBody = { name: required(ProductNameField), price: required(ProductPriceField) };
export const UpdateProductBody = { name: optional(ProductNameField), price: optional(ProductPriceField) };
