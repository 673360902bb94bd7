import type { Database } from '../src/adapters/outbound/mikroorm/database.js';
import { tableOf } from '../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { Product, type ProductProps } from '../src/domain/product/Product.js';

/** The admin the benchmark seeds and logs in as. */
export const BENCH_ADMIN = { email: 'bench-admin@example.com', password: 'bench-admin-password' };

/** The token settings the bench's services and the same-work app share, so one token works on both. */
export const BENCH_JWT = { secret: 'portico-bench-secret-not-for-production-use', issuer: 'portico' };

/** A product row as the benchmarks seed it: a product's stored props. */
export type SeedProduct = ProductProps;

/**
 * Empties the products table and inserts `rows` through the product repository, so every column
 * of the declaration is written (a field added later included).
 */
export async function reseedProducts(database: Database, rows: readonly SeedProduct[]): Promise<void> {
  await database.sql.run('delete from products');
  const products = new SqlResourceRepository(database, tableOf(Product));
  for (const row of rows) await products.add(Product.restore(row));
}
