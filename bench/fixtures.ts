import type { Database } from '../src/adapters/outbound/mikroorm/database.js';

/** The admin the benchmark seeds and logs in as. */
export const BENCH_ADMIN = { email: 'bench-admin@example.com', password: 'bench-admin-password' };

/** A product row as the benchmarks seed it. */
export interface SeedProduct {
  readonly id: string;
  readonly name: string;
  readonly price: number;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

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
