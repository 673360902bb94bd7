/**
 * Prepares the benchmark database: migrations, an admin (bcrypt at the configured cost) and
 * 1,000 products, copied (same ids) into the bench's cached twin (bench/cachedProducts.ts); on a
 * database used before (PostgreSQL), its products, their twin and the bench admin are replaced. Run with the same SVC_* environment as the service.
 *   node --import tsx bench/seed.ts
 */
import { randomUUID } from 'node:crypto';
import { BcryptPasswordHasher } from '../src/adapters/outbound/crypto/BcryptPasswordHasher.js';
import { UserSchema } from '../src/adapters/outbound/mikroorm/schemas/UserSchema.js';
import { openDatabase } from '../src/main/infrastructure/database.js';
import { readConfig } from '../src/main/config/readConfig.js';
import { productInput } from '../test/support/resources/product.js';

import { reseedCachedProducts } from './cachedProducts.js';
import { BENCH_ADMIN, reseedProducts, type SeedProduct } from './fixtures.js';

const loaded = readConfig();
if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
const { config } = loaded;
const database = await openDatabase(config);
try {
  await database.migrate();
  const em = database.orm.em.fork();
  await em.nativeDelete(UserSchema, { email: BENCH_ADMIN.email });
  const now = new Date();
  await em.insert(UserSchema, {
    id: randomUUID(),
    email: BENCH_ADMIN.email,
    firstName: 'Bench',
    lastName: 'Admin',
    role: 'admin',
    passwordHash: await new BcryptPasswordHasher(config.auth.bcryptCost).hash(BENCH_ADMIN.password),
    createdAt: now,
    updatedAt: now,
  });
  const rows: SeedProduct[] = Array.from({ length: 1000 }, (_, n) => {
    const at = new Date(now.getTime() - (1000 - n) * 1000);
    return {
      ...productInput,
      id: randomUUID(),
      name: `Benchmark product ${String(n).padStart(4, '0')}`,
      price: 1 + (n % 97) + 0.99,
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
  });
  await reseedProducts(database, rows);
  await reseedCachedProducts(database, rows);
  const ids = rows.map((row) => row.id);
  // A reused PostgreSQL database keeps the dead rows of earlier runs (every create scenario adds
  // thousands): without this, count(*) and the list walk them and the run measures the leftovers.
  if (config.database.url.startsWith('postgres')) await database.sql.run('vacuum analyze products');
  process.stdout.write(`${JSON.stringify({ productIds: ids.slice(0, 50) })}\n`);
} finally {
  await database.close();
}
