import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryProductRepository } from '../../../src/adapters/outbound/memory/InMemoryProductRepository.js';
import { PRODUCT_TABLE, SqlProductRepository } from '../../../src/adapters/outbound/mikroorm/SqlProductRepository.js';
import { insertRows } from '../../support/resource/repository.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { productRepositoryContract } from './contracts/productRepository.contract.js';

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
          addMany: (products) =>
            insertRows(
              database.db.orm,
              PRODUCT_TABLE,
              products.map((product) => product.toProps()),
              !target.name.startsWith('PostgreSQL'),
            ),
        };
      },
      tearDown: () => database.close(),
    });
  }
});
