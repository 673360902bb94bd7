/**
 * Prepares the benchmark database: migrations, an admin (bcrypt at the configured cost) and
 * 1,000 products; on a database used before (PostgreSQL), its products and the bench admin are
 * replaced. Run with the same SVC_* environment as the service.
 *   node --import tsx bench/seed.ts
 */
import { randomUUID } from 'node:crypto';
import { BcryptPasswordHasher } from '../src/adapters/outbound/crypto/BcryptPasswordHasher.js';
import { ProductSchema } from '../src/adapters/outbound/mikroorm/schemas/ProductSchema.js';
import { UserSchema } from '../src/adapters/outbound/mikroorm/schemas/UserSchema.js';
import { openDatabase } from '../src/main/database.js';
import { readConfig } from '../src/main/readConfig.js';

import { BENCH_ADMIN } from './fixtures.js';

const loaded = readConfig();
if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
const { config } = loaded;
const database = await openDatabase(config);
try {
  await database.migrate();
  const em = database.orm.em.fork();
  await em.nativeDelete(ProductSchema, {});
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
  const ids: string[] = [];
  for (let chunk = 0; chunk < 1000; chunk += 250) {
    const rows = Array.from({ length: 250 }, (_, i) => {
      const n = chunk + i;
      const at = new Date(now.getTime() - (1000 - n) * 1000);
      const id = randomUUID();
      ids.push(id);
      return {
        id,
        name: `Benchmark product ${String(n).padStart(4, '0')}`,
        price: 1 + (n % 97) + 0.99,
        version: 1,
        createdAt: at,
        updatedAt: at,
      };
    });
    await em.insertMany(ProductSchema, rows);
  }
  // A reused PostgreSQL database keeps the dead rows of earlier runs (every create scenario adds
  // thousands): without this, count(*) and the list walk them and the run measures the leftovers.
  if (config.database.url.startsWith('postgres')) await em.getConnection().execute('vacuum analyze products');
  process.stdout.write(`${JSON.stringify({ productIds: ids.slice(0, 50) })}\n`);
} finally {
  await database.close();
}
