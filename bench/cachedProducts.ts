/**
 * The bench's cached resource: products' twin, declared `cached: true` (products are not), so that
 * the table's "GET by id, cached" row reads the same row shape as its product row, from the shared
 * cache. The bench owns it: served by bench/benchServer.ts beside the module list, its table made
 * and filled by bench/seed.ts with a copy of the seeded products (same ids).
 */
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import type { Database } from '../src/adapters/outbound/mikroorm/database.js';
import { createResourceTable, tableOf } from '../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { PRODUCT } from '../src/domain/product/Product.js';
import { declareResource, entityOf } from '../src/domain/shared/resource.js';
import { MODULES } from '../src/main/modules/index.js';
import type { FeatureModule } from '../src/main/modules/FeatureModule.js';
import { resourceModule } from '../src/main/modules/resource.js';
import type { SeedProduct } from './fixtures.js';

export const CACHED_PRODUCT = declareResource({
  name: 'cached_product',
  plural: 'cached_products',
  fields: PRODUCT.fields,
  cached: true,
});
export class CachedProduct extends entityOf(CACHED_PRODUCT) {}

/** The module list with the cached twin served after it. */
export const BENCH_MODULES: readonly FeatureModule[] = [...MODULES, resourceModule(CachedProduct)];

/** Makes its table afresh (rows gone) and inserts `rows` through its repository. */
export async function reseedCachedProducts(database: Database, rows: readonly SeedProduct[]): Promise<void> {
  const knex = (database.orm.em.getConnection() as AbstractSqlConnection).getKnex();
  const table = tableOf(CachedProduct);
  await knex.schema.dropTableIfExists(CACHED_PRODUCT.plural);
  for (const statement of createResourceTable(knex, table)) await knex.raw(statement);
  const repository = new SqlResourceRepository(database, table);
  for (const row of rows) await repository.add(CachedProduct.restore(row));
}
