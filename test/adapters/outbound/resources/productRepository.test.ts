import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryProductRepository } from '../../../../src/adapters/outbound/memory/InMemoryProductRepository.js';
import {
  PRODUCT_TABLE,
  SqlProductRepository,
} from '../../../../src/adapters/outbound/mikroorm/SqlProductRepository.js';
import { Product, type ProductProps } from '../../../../src/domain/product/Product.js';
import type { ProductSortField } from '../../../../src/domain/product/ProductRepository.js';
import { clearResourceTables, insertRows } from '../../../support/resource/repository.js';
import { productInput } from '../../../support/resources/product.js';
import { SqlDatabaseFixture, sqlTargets } from '../contracts/databases.js';
import {
  resourceRepositoryContract,
  type ResourceDescriptor,
  type ResourceStorage,
} from '../contracts/resourceRepository.contract.js';

const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

const PRODUCT: ResourceDescriptor<Product, ProductSortField> = {
  make: (id, values = {}) =>
    Product.restore({ id, ...productInput, version: 1, createdAt: T0, updatedAt: T0, ...values } as ProductProps),
  propsOf: (product) => product.toProps() as unknown as Record<string, unknown>,
  change: (product, n, now) => product.update({ name: `v${n}`.slice(0, 200) }, now),
  sortable: [
    { field: 'name', prop: 'name', optional: false, values: ['Alpha', 'Beta', 'Gamma'] },
    { field: 'price', prop: 'price', optional: false, values: [5, 19.99] },
    { field: 'created_at', prop: 'createdAt', optional: false, values: [at(0), at(1), at(2)] },
    { field: 'updated_at', prop: 'updatedAt', optional: false, values: [at(3), at(4)] },
  ],
  search: 'name',
};

describe('Product repositories (generated)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-products-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  resourceRepositoryContract('products in memory', PRODUCT, {
    setUp: async () => undefined,
    fresh: async (): Promise<ResourceStorage<Product, ProductSortField>> => {
      const repository = new InMemoryProductRepository();
      return {
        repository,
        addMany: async (rows) => void (await Promise.all(rows.map((row) => repository.add(row)))),
      };
    },
    tearDown: async () => undefined,
  });

  for (const target of sqlTargets(dir, 'products.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    resourceRepositoryContract(`products on ${target.name}`, PRODUCT, {
      setUp: () => database.open(),
      fresh: async () => {
        const orm = database.db.orm;
        await clearResourceTables(orm);
        return {
          repository: new SqlProductRepository(database.db),
          addMany: (rows) =>
            insertRows(
              orm,
              PRODUCT_TABLE,
              rows.map((row) => row.toProps()),
              !target.name.startsWith('PostgreSQL'),
            ),
        };
      },
      tearDown: () => database.close(),
    });
  }
});
