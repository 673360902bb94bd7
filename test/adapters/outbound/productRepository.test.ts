import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableOf } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { Product } from '../../../src/domain/product/Product.js';
import { productRows } from '../../support/resources/product.js';
import { insertRows } from '../../support/resource/repository.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { productRepositoryContract } from './contracts/productRepository.contract.js';

const PRODUCT_TABLE = tableOf(Product);

describe('Product repositories (the shared memory and SQL cores)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-products-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  productRepositoryContract('products in memory', {
    setUp: async () => undefined,
    fresh: async () => {
      const repository = productRows();
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
    productRepositoryContract(`products on ${target.name}`, {
      setUp: () => database.open(),
      fresh: async () => {
        await database.clear();
        return {
          repository: new SqlResourceRepository(database.db, PRODUCT_TABLE),
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
