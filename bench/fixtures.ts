import type { Database } from '../src/adapters/outbound/mikroorm/database.js';
import type { ProductProps } from '../src/domain/product/Product.js';

/** The admin the benchmark seeds and logs in as. */
export const BENCH_ADMIN = { email: 'bench-admin@example.com', password: 'bench-admin-password' };

/** A product row as the benchmarks seed it: a product's stored props. */
export type SeedProduct = ProductProps;

/** Empties the products table and inserts `rows` in one transaction, through the service's SQL executor. */
export async function reseedProducts(database: Database, rows: readonly SeedProduct[]): Promise<void> {
  await database.sql.transaction(async (tx) => {
    await tx.run('delete from products');
    for (const row of rows) {
      await tx.run(
        'insert into products (id, name, price, version, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
        [row.id, row.name, row.price, row.version, row.createdAt, row.updatedAt],
      );
    }
  });
}
