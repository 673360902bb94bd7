/**
 * Product bodies for the hand-written product tests, derived from the generated descriptor
 * (./product.ts, which `npm run generate -- field product …` rewrites): a required field added to
 * the product later is filled in for every test that builds a body from these, so only the fields
 * a test is about are written out in it (`{ ...PRODUCT_BODY, name: 'Oak chair' }`).
 */

import type { operations } from '../openapi/portico.js';
import type { Json } from '../resource/descriptor.js';
import { graphqlInput } from '../resource/world.js';
import { discoverMigrations } from '../../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { productResource } from './product.js';

/**
 * Whether products were changed since Portico shipped them: a migration changes their table
 * (`generate field product …` or `generate migration` wrote it). Tests of
 * products exactly as shipped (the generator's golden rule, the released migration's schema, the
 * benchmark's reference app) are then skipped, not failed: the change was made on purpose.
 */
// Read once, when a test first asks (no top-level await: a module mocha may `require` cannot have one).
let changed: Promise<boolean> | undefined;
export const productsChanged = (): Promise<boolean> =>
  (changed ??= discoverMigrations().then((migrations) =>
    migrations.some(
      (migration) => (migration.class as { change?: { after: { table: string } } }).change?.after.table === 'products',
    ),
  ));

/** The JSON body of POST /api/v1/products, as the API document types it. */
export type ProductBody = operations['createProduct']['requestBody']['content']['application/json'];

/**
 * A valid REST create body: every required field at its first sample (the fields `requiredBody`
 * of the shared suites gives, without a running service: a product has no ref to make first).
 * Today `{ name: 'Walnut desk', price: 19.99 }`.
 */
export const PRODUCT_BODY = Object.fromEntries(
  productResource.fields
    .filter((field) => !field.optional)
    .map((field) => {
      if (field.ref) throw new Error(`${field.name} is a ref: a product body needs a row made for it first`);
      return [field.name, field.samples[0]];
    }),
) as ProductBody;

/** The same body as a GraphQL `CreateProductInput` (camel-case names, GraphQL forms of the samples). */
export const PRODUCT_INPUT: Readonly<Record<string, Json>> = graphqlInput(productResource, PRODUCT_BODY);

/** A GraphQL input in literal form (`{ name: "", price: 0 }`): enum values bare, other values as JSON writes them. */
export function graphqlLiteral(input: Readonly<Record<string, Json>>): string {
  const enums = new Set(productResource.fields.filter((f) => f.kind === 'enum').map((f) => f.graphql));
  const value = (name: string, json: Json) =>
    enums.has(name) && typeof json === 'string' ? json : JSON.stringify(json);
  return `{ ${Object.entries(input)
    .map(([name, json]) => `${name}: ${value(name, json)}`)
    .join(', ')} }`;
}
