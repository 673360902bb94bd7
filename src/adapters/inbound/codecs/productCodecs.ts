import { PRODUCT_FIELD_RULES } from '../../../domain/product/Product.js';
import { hasInvisibleCharacters, INVISIBLE_MESSAGE } from '../../../domain/shared/Text.js';
import { optional, Problem, required, rule } from './fields.js';

/** 1 to 200 characters once trimmed, none of them invisible (looked for before trimming). */
export const ProductNameField = rule('must be 1 to 200 characters', (u) => {
  if (typeof u !== 'string') return undefined;
  if (hasInvisibleCharacters(u)) return new Problem(INVISIBLE_MESSAGE);
  const name = u.trim();
  const problem = PRODUCT_FIELD_RULES.name.violation(name);
  return problem === undefined ? name : new Problem(problem);
});

/** A JSON number, finite and greater than 0 (a string such as "10" is refused). */
export const PriceField = rule('must be a number greater than 0', (u) =>
  typeof u === 'number' && PRODUCT_FIELD_RULES.price.violation(u) === undefined ? u : undefined,
);

export const CreateProductBody = { name: required(ProductNameField), price: required(PriceField) };
export const UpdateProductBody = { name: optional(ProductNameField), price: optional(PriceField) };
