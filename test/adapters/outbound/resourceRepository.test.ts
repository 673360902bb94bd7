import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { tableOf } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { SqlResourceRepository } from '../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { Product, type ProductProps } from '../../../src/domain/product/Product.js';
import { productInput, productRows, type ProductSortField } from '../../support/resources/product.js';
import {
  createPartsTable,
  dropPartsTable,
  InMemoryPartRepository,
  Part,
  type PartProps,
  type PartSortField,
  SqlPartRepository,
} from '../../support/parts.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import {
  resourceRepositoryContract,
  type ResourceDescriptor,
  type ResourceStorage,
} from './contracts/resourceRepository.contract.js';

const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const CHUNK = 200;

const PRODUCT: ResourceDescriptor<Product, ProductSortField> = {
  make: (id, values = {}) =>
    Product.restore({
      // The generated sample first: a field added to products later is filled in.
      ...productInput,
      id,
      name: 'Widget',
      price: 1,
      version: 1,
      createdAt: T0,
      updatedAt: T0,
      ...values,
    } as ProductProps),
  propsOf: (product) => product.toProps() as unknown as Record<string, unknown>,
  change: (product, n, now) => product.update({ price: n + 1 }, now),
  sortable: [
    { field: 'name', prop: 'name', optional: false, values: ['Alpha', 'Beta', 'Gamma'] },
    { field: 'price', prop: 'price', optional: false, values: [0.5, 2, 10] },
    { field: 'created_at', prop: 'createdAt', optional: false, values: [at(0), at(1), at(2)] },
    { field: 'updated_at', prop: 'updatedAt', optional: false, values: [at(3), at(4)] },
  ],
  search: 'name',
};

const PART: ResourceDescriptor<Part, PartSortField> = {
  make: (id, values = {}) =>
    Part.restore({
      id,
      label: 'Part',
      notes: null,
      quantity: null,
      weight: null,
      active: null,
      dueAt: null,
      grade: null,
      contact: null,
      productId: '00000000-0000-4000-8000-00000000fff0',
      version: 1,
      createdAt: T0,
      updatedAt: T0,
      ...values,
    } as PartProps),
  propsOf: (part) => part.toProps() as unknown as Record<string, unknown>,
  change: (part, n, now) => part.update({ quantity: n, notes: `note ${n}` }, now),
  sortable: [
    { field: 'label', prop: 'label', optional: false, values: ['Bolt', 'Nut', 'Washer'] },
    { field: 'quantity', prop: 'quantity', optional: true, values: [-3, 0, 7, 2_147_483_647] },
    { field: 'weight', prop: 'weight', optional: true, values: [0.25, 1.5, 1e6] },
    { field: 'active', prop: 'active', optional: true, values: [false, true] },
    { field: 'due_at', prop: 'dueAt', optional: true, values: [at(-100), at(0), at(0.001), at(86_400)] },
    { field: 'grade', prop: 'grade', optional: true, values: ['high', 'low', 'mid'] },
    { field: 'contact', prop: 'contact', optional: true, values: ['a@example.com', 'b@example.com'] },
    { field: 'created_at', prop: 'createdAt', optional: false, values: [at(0), at(1)] },
    { field: 'updated_at', prop: 'updatedAt', optional: false, values: [at(3), at(4), at(5)] },
  ],
  search: 'label',
  reference: { prop: 'productId', field: 'product_id', target: 'product' },
};

const aProduct = (id: string) => PRODUCT.make(id);

describe('Resource repositories on the outbound cores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-resources-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  resourceRepositoryContract('products in memory', PRODUCT, {
    setUp: async () => undefined,
    fresh: async (): Promise<ResourceStorage<Product, ProductSortField>> => {
      const repository = productRows();
      return { repository, addMany: async (rows) => void (await Promise.all(rows.map((row) => repository.add(row)))) };
    },
    tearDown: async () => undefined,
  });

  resourceRepositoryContract('parts in memory (optional fields, every type, a reference)', PART, {
    setUp: async () => undefined,
    fresh: async (): Promise<ResourceStorage<Part, PartSortField>> => {
      const products = productRows();
      const repository = new InMemoryPartRepository(products);
      return {
        repository,
        referenced: { add: (id) => products.add(aProduct(id)), delete: (id) => products.delete(id) },
        addMany: async (rows) => void (await Promise.all(rows.map((row) => repository.add(row)))),
      };
    },
    tearDown: async () => undefined,
  });

  for (const target of sqlTargets(dir, 'resources.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    const knex = () => (database.db.orm.em.getConnection() as AbstractSqlConnection).getKnex();
    const insertMany = async (table: string, rows: readonly Record<string, unknown>[]) => {
      const sqlite = !target.name.startsWith('PostgreSQL');
      const driverRows = rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [
            k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
            sqlite && v instanceof Date ? v.getTime() : sqlite && typeof v === 'boolean' ? Number(v) : v,
          ]),
        ),
      );
      for (let start = 0; start < driverRows.length; start += CHUNK)
        await knex()(table).insert(driverRows.slice(start, start + CHUNK));
    };

    resourceRepositoryContract(`products on ${target.name}`, PRODUCT, {
      setUp: () => database.open(),
      fresh: async () => {
        await database.clear();
        const repository = new SqlResourceRepository(database.db, tableOf(Product));
        return {
          repository,
          addMany: (rows) =>
            insertMany(
              'products',
              rows.map((row) => row.toProps() as unknown as Record<string, unknown>),
            ),
        };
      },
      tearDown: () => database.close(),
    });

    const partsDatabase = new SqlDatabaseFixture(target);
    resourceRepositoryContract(`parts on ${target.name} (optional fields, every type, a reference)`, PART, {
      setUp: async () => {
        const skipped = await partsDatabase.open();
        if (skipped === undefined) await createPartsTable(partsDatabase.db.orm);
        return skipped;
      },
      fresh: async () => {
        await partsDatabase.db.orm.em.getConnection().execute('delete from test_parts');
        await partsDatabase.clear();
        const products = new SqlResourceRepository(partsDatabase.db, tableOf(Product));
        const repository = new SqlPartRepository(partsDatabase.db);
        const partsKnex = () => (partsDatabase.db.orm.em.getConnection() as AbstractSqlConnection).getKnex();
        return {
          repository,
          referenced: { add: (id) => products.add(aProduct(id)), delete: (id) => products.delete(id) },
          addMany: async (rows) => {
            const sqlite = !target.name.startsWith('PostgreSQL');
            const driverRows = rows.map((row) =>
              Object.fromEntries(
                Object.entries(row.toProps()).map(([k, v]) => [
                  k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
                  sqlite && v instanceof Date ? v.getTime() : sqlite && typeof v === 'boolean' ? Number(v) : v,
                ]),
              ),
            );
            for (let start = 0; start < driverRows.length; start += CHUNK)
              await partsKnex()('test_parts').insert(driverRows.slice(start, start + CHUNK));
          },
        };
      },
      tearDown: async () => {
        if (partsDatabase.target.url()) await dropPartsTable(partsDatabase.db.orm).catch(() => undefined);
        await partsDatabase.close();
      },
    });
  }
});
