import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryProductRepository } from '../../../src/adapters/outbound/memory/InMemoryProductRepository.js';
import { SqlProductRepository } from '../../../src/adapters/outbound/mikroorm/SqlProductRepository.js';
import { ProductSchema } from '../../../src/adapters/outbound/mikroorm/schemas/ProductSchema.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { productRepositoryContract } from './contracts/productRepository.contract.js';

/** Rows a single bulk insert carries (6 parameters each: well under SQLite's and PostgreSQL's limits). */
const CHUNK = 500;

describe('ProductRepository implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-products-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  productRepositoryContract('InMemoryProductRepository', {
    setUp: async () => undefined,
    fresh: async () => {
      const repository = new InMemoryProductRepository();
      return {
        repository,
        addMany: async (products) => {
          for (const product of products) await repository.add(product);
        },
      };
    },
    tearDown: async () => undefined,
  });

  for (const target of sqlTargets(dir, 'products.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    productRepositoryContract(`SqlProductRepository on ${target.name}`, {
      setUp: () => database.open(),
      fresh: async () => {
        await database.clear();
        return {
          repository: new SqlProductRepository(database.db),
          addMany: async (products) => {
            for (let start = 0; start < products.length; start += CHUNK) {
              const rows = products.slice(start, start + CHUNK).map((product) => product.toProps());
              await database.db.orm.em.fork().insertMany(ProductSchema, rows);
            }
          },
        };
      },
      tearDown: () => database.close(),
    });
  }
});
