import { domainFiles } from '../../../tools/generate/templates/domain/index.js';
import { customerModel, invoiceModel } from './models.js';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MigrationObject } from '@mikro-orm/core';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import { expect } from 'chai';
import type { StoredRule } from '../../../src/adapters/outbound/access/PolicyRuleStore.js';
import type { Database } from '../../../src/adapters/outbound/mikroorm/database.js';
import type { MikroOrmPolicyRuleStore as PolicyRuleStoreClass } from '../../../src/adapters/outbound/mikroorm/MikroOrmPolicyRuleStore.js';
import type { ListQuery, Page } from '../../../src/domain/shared/Page.js';
import type * as MainDatabase from '../../../src/main/infrastructure/database.js';
import type * as MigrationFiles from '../../../src/adapters/outbound/mikroorm/migrationFiles.js';
import type * as MemoryCore from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import type * as SqlCore from '../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import type * as TableCore from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { moduleListEdit } from '../../../tools/generate/templates/main/edits.js';
import { accessGrants, migrationName, outboundFiles } from '../../../tools/generate/templates/outbound/index.js';
import type * as Databases from '../../adapters/outbound/contracts/databases.js';
import type { SqlTarget } from '../../adapters/outbound/contracts/databases.js';
import type * as Contract from '../../adapters/outbound/contracts/resourceRepository.contract.js';
import type {
  ResourceDescriptor,
  ResourceStorage,
} from '../../adapters/outbound/contracts/resourceRepository.contract.js';
import type * as SupportDatabase from '../../support/database.js';
import type * as SupportRepository from '../../support/resource/repository.js';
import type { TableSpec } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';

/**
 * The migrations and entities the templates write for two related resources with every field type
 * — `customer` (searched) and `invoice` referencing it — rendered into a scratch tree beside the
 * real sources, then type checked, migrated on SQLite and PostgreSQL, and run through the resource
 * repository contract on the shared cores (SqlResourceRepository, memoryRepositoryOf) over the
 * rendered declarations: the table the migration creates is the one the repository reads.
 * Everything the test runs is loaded from the scratch tree (a copy of src and test), so the
 * rendered files and the contract share one DomainError class.
 */

const CUSTOMER = customerModel();
const INVOICE = invoiceModel();

const repositoryRoot = realpathSync(new URL('../../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'portico-outbound-'));
for (const folder of ['src', 'test']) cpSync(join(repositoryRoot, folder), join(scratch, folder), { recursive: true });
symlinkSync(realpathSync(join(repositoryRoot, 'node_modules')), join(scratch, 'node_modules'));
cpSync(join(repositoryRoot, 'package.json'), join(scratch, 'package.json'));
const rendered = [...outboundFiles(CUSTOMER), ...outboundFiles(INVOICE)];
/**
 * The module list with both resources' lines, beside the real one (the database of this test finds
 * the rendered migrations as files all the same), so the type check sees them wired.
 */
const moduleList = {
  path: 'src/main/modules/generatedIndex.ts',
  contents: [CUSTOMER, INVOICE].reduce(
    (text, model) => moduleListEdit(model, text),
    readFileSync(join(repositoryRoot, 'src/main/modules/index.ts'), 'utf8'),
  ),
};
const written = [...rendered, ...domainFiles(CUSTOMER), ...domainFiles(INVOICE), moduleList];
for (const file of written) {
  mkdirSync(dirname(join(scratch, file.path)), { recursive: true });
  writeFileSync(join(scratch, file.path), file.contents);
}

type Props = Readonly<Record<string, unknown>>;
interface Entity {
  toProps(): Props;
  update(changes: Props, now: Date): Entity;
}
interface Repository {
  add(entity: Entity): Promise<void>;
  findById(id: string): Promise<Entity | undefined>;
  update(id: string, change: (current: Entity) => Entity): Promise<Entity | undefined>;
  delete(id: string, onlyAtVersions?: readonly number[]): Promise<boolean>;
  list(query: ListQuery<string>): Promise<Page<Entity>>;
  findByIds(ids: readonly string[]): Promise<readonly Entity[]>;
  listByReference?(
    field: string,
    ids: readonly string[],
    query: ListQuery<string>,
  ): Promise<ReadonlyMap<string, Page<Entity>>>;
}
/** A rendered entity class, as the shared cores take it. */
type EntityClass = { restore(props: Props): Entity } & MemoryCore.MemoryEntityClass &
  Parameters<typeof TableCore.tableOf>[0];

const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(scratch, path)).href)) as T;
const adapters = 'src/adapters/outbound';
const { Customer } = await load<{ Customer: EntityClass }>('src/domain/customer/Customer.ts');
const { Invoice } = await load<{ Invoice: EntityClass }>('src/domain/invoice/Invoice.ts');
const { SqlResourceRepository } = await load<typeof SqlCore>(`${adapters}/mikroorm/SqlResourceRepository.ts`);
const { tableOf } = await load<typeof TableCore>(`${adapters}/mikroorm/resourceTable.ts`);
const { memoryRepositoryOf } = await load<typeof MemoryCore>(`${adapters}/memory/InMemoryResourceRepository.ts`);
const { insertRows } = await load<typeof SupportRepository>('test/support/resource/repository.ts');
const CUSTOMER_TABLE = tableOf(Customer) as unknown as TableSpec;
const INVOICE_TABLE = tableOf(Invoice) as unknown as TableSpec;
/** The shared SQL core over a rendered entity's table. */
const sqlRepository = (db: Database, Entity: EntityClass): Repository =>
  new SqlResourceRepository(db, tableOf(Entity)) as unknown as Repository;
/** The shared memory core over a rendered entity, beside the repositories of what it refers to. */
const memoryRepository = (Entity: EntityClass, parents: Record<string, Repository> = {}): Repository =>
  memoryRepositoryOf(Entity, parents as never) as unknown as Repository;
const { MikroOrmPolicyRuleStore } = await load<{ MikroOrmPolicyRuleStore: typeof PolicyRuleStoreClass }>(
  `${adapters}/mikroorm/MikroOrmPolicyRuleStore.ts`,
);
const { moduleEntities } = await load<typeof MainDatabase>('src/main/infrastructure/database.ts');
const { discoverMigrations } = await load<typeof MigrationFiles>(`${adapters}/mikroorm/migrationFiles.ts`);
const { sqlTargets } = await load<typeof Databases>('test/adapters/outbound/contracts/databases.ts');
const { resourceRepositoryContract } = await load<typeof Contract>(
  'test/adapters/outbound/contracts/resourceRepository.contract.ts',
);
const { connectDatabase } = await load<typeof SupportDatabase>('test/support/database.ts');
const migrations: MigrationObject[] = [];
for (const model of [CUSTOMER, INVOICE]) {
  const name = migrationName(model);
  const [file] = outboundFiles(model);
  const module = await load<Record<string, MigrationObject['class']>>(file!.path);
  migrations.push({ name, class: module[name]! });
}

const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const aCustomer = (id: string, values: Props = {}): Entity =>
  Customer.restore({
    id,
    name: 'Ada',
    email: 'ada@example.com',
    tier: 'pro',
    version: 1,
    createdAt: T0,
    updatedAt: T0,
    ...values,
  });

const CUSTOMERS: ResourceDescriptor<Entity, string> = {
  make: aCustomer,
  propsOf: (customer) => customer.toProps(),
  change: (customer, n, now) => customer.update({ email: `c${n}@example.com` }, now),
  sortable: [
    { field: 'name', prop: 'name', optional: false, values: ['Ada', 'Grace', 'Linus'] },
    { field: 'email', prop: 'email', optional: false, values: ['a@example.com', 'b@example.com'] },
    { field: 'tier', prop: 'tier', optional: false, values: ['free', 'pro'] },
    { field: 'created_at', prop: 'createdAt', optional: false, values: [at(0), at(1)] },
    { field: 'updated_at', prop: 'updatedAt', optional: false, values: [at(3), at(4), at(5)] },
  ],
  search: 'name',
};

const INVOICES: ResourceDescriptor<Entity, string> = {
  make: (id, values = {}) =>
    Invoice.restore({
      id,
      customerId: uuid(0xfff0),
      number: 'INV-1',
      total: 10,
      amount: '12.50',
      dueAt: T0,
      paid: false,
      notes: 'Net 30, thank you — ünïcödé',
      tier: 'free',
      score: null,
      contact: null,
      ext: null,
      version: 1,
      createdAt: T0,
      updatedAt: T0,
      ...values,
    }),
  propsOf: (invoice) => invoice.toProps(),
  change: (invoice, n, now) => invoice.update({ total: n + 1, notes: n % 2 === 0 ? null : `note ${n}` }, now),
  sortable: [
    { field: 'number', prop: 'number', optional: false, values: ['A-1', 'B-2', 'C-3'] },
    { field: 'total', prop: 'total', optional: false, values: [-1.5, 0, 2, 1e9] },
    { field: 'amount', prop: 'amount', optional: false, values: ['0.00', '9.00', '10.00', '9999999999.99'] },
    { field: 'due_at', prop: 'dueAt', optional: false, values: [at(-100), at(0), at(0.001), at(86_400)] },
    { field: 'paid', prop: 'paid', optional: false, values: [false, true] },
    { field: 'tier', prop: 'tier', optional: false, values: ['free', 'pro'] },
    { field: 'score', prop: 'score', optional: true, values: [0, 5, 10] },
    { field: 'contact', prop: 'contact', optional: true, values: ['a@example.com', 'b@example.com'] },
    { field: 'ext', prop: 'ext', optional: true, values: [uuid(1), uuid(2), uuid(3)] },
    { field: 'created_at', prop: 'createdAt', optional: false, values: [at(0), at(1)] },
    { field: 'updated_at', prop: 'updatedAt', optional: false, values: [at(3), at(4), at(5)] },
  ],
  reference: { prop: 'customerId', field: 'customer_id', target: 'customer' },
};

const knexOf = (db: Database): Knex => (db.orm.em.getConnection() as AbstractSqlConnection).getKnex();

/** Rows straight into a table, as the driver stores them (SQLite: epoch milliseconds, 0/1, a decimal's smallest unit). */
const insertMany = (db: Database, table: TableSpec, rows: readonly Entity[], sqlite: boolean): Promise<void> =>
  insertRows(
    db.orm,
    table,
    rows.map((row) => row.toProps()),
    sqlite,
  );

/** Takes the two resources out of a shared database (PostgreSQL's test database outlives this run). */
async function removeResources(db: Database): Promise<void> {
  const knex = knexOf(db);
  await knex.raw('drop table if exists invoices');
  await knex.raw('drop table if exists customers');
  await knex('mikro_orm_migrations')
    .whereIn(
      'name',
      migrations.map((m) => m.name),
    )
    .delete();
  await knex('access_rules')
    .whereIn('v1', ['/api/v1/customers', '/api/v1/customers/{id}', '/api/v1/invoices', '/api/v1/invoices/{id}'])
    .delete();
}

/** A database mapping the modules, migrated up to the rendered migrations. */
async function openWithResources(url: string): Promise<Database> {
  // The rendered migrations are files of the scratch tree's migrations folder: found with the others.
  const db = await connectDatabase(url, { entities: moduleEntities() });
  await db.migrate();
  return db;
}

/** The table's columns and indexes as the engine reports them. */
async function schemaOf(db: Database, table: string, postgres: boolean): Promise<string> {
  const knex = knexOf(db);
  if (!postgres)
    return JSON.stringify(await knex.raw(`select name, sql from sqlite_master where tbl_name = ?`, [table]));
  const indexes = await knex.raw(`select indexname, indexdef from pg_indexes where tablename = ?`, [table]);
  const keys = await knex.raw(
    `select conname, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = ?::regclass and contype = 'f'`,
    [table],
  );
  const columns = await knex.raw(
    `select column_name, data_type, is_nullable from information_schema.columns where table_name = ?`,
    [table],
  );
  return JSON.stringify({ indexes: indexes.rows, keys: keys.rows, columns: columns.rows });
}

describe('generate: the rendered migrations and declarations for every field type and a reference (customer, invoice)', function () {
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('type checks (tsc --noEmit, strict, the project options) with the real sources, both wired by resourceModule(…)', function () {
    this.timeout(240_000);
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        extends: join(repositoryRoot, 'tsconfig.json'),
        compilerOptions: { noEmit: true, rootDir: '/', types: ['node'] },
        include: [],
        files: written.map((file) => file.path),
      }),
    );
    const tsc = join(scratch, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', join(scratch, 'tsconfig.json')], { encoding: 'utf8' });
    expect(result.stdout + result.stderr, relative(repositoryRoot, scratch)).to.equal('');
    expect(result.status).to.equal(0);
  });

  resourceRepositoryContract('rendered customers in memory', CUSTOMERS, {
    setUp: async () => undefined,
    fresh: async (): Promise<ResourceStorage<Entity, string>> => {
      const repository = memoryRepository(Customer);
      return { repository, addMany: async (rows) => void (await Promise.all(rows.map((row) => repository.add(row)))) };
    },
    tearDown: async () => undefined,
  });

  resourceRepositoryContract('rendered invoices in memory (a reference to rendered customers)', INVOICES, {
    setUp: async () => undefined,
    fresh: async (): Promise<ResourceStorage<Entity, string>> => {
      const customers = memoryRepository(Customer);
      const repository = memoryRepository(Invoice, { customers });
      return {
        repository,
        referenced: { add: (id) => customers.add(aCustomer(id)), delete: (id) => customers.delete(id) },
        addMany: async (rows) => void (await Promise.all(rows.map((row) => repository.add(row)))),
      };
    },
    tearDown: async () => undefined,
  });

  const dir = mkdtempSync(join(tmpdir(), 'portico-outbound-db-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'generated.sqlite')) {
    describeOn(target);
  }
});

function describeOn(target: SqlTarget): void {
  const postgres = target.name.startsWith('PostgreSQL');
  let db: Database | undefined;
  const database = (): Database => {
    if (!db) throw new Error(`${target.name} is not open`);
    return db;
  };
  const setUp = async (): Promise<string | undefined> => {
    const url = target.url();
    if (!url) return `${target.name} needs SVC_TEST_POSTGRES_URL`;
    if (db) return undefined;
    const plain = await connectDatabase(url);
    await plain.migrate();
    await removeResources(plain);
    await plain.close();
    db = await openWithResources(url);
    return undefined;
  };
  const tearDown = async (): Promise<void> => {
    if (!db) return;
    await removeResources(db);
    await db.close();
    db = undefined;
  };
  const clear = async (): Promise<void> => {
    await database().orm.em.getConnection().execute('delete from invoices');
    await database().orm.em.getConnection().execute('delete from customers');
  };

  describe(`rendered customers and invoices on ${target.name}`, function () {
    before(async function () {
      const skipped = await setUp();
      if (skipped !== undefined) {
        console.log(`      (skipped: ${skipped})`);
        this.skip();
      }
    });

    it('migrates: every column, the foreign key (on delete restrict) and its index, an index per sort, nulls-last pairs', async () => {
      const invoices = await schemaOf(database(), 'invoices', postgres);
      expect(invoices.toLowerCase()).to.match(
        /foreign key ?\(\W*customer_id\W*\) references \W*customers\W* ?\(\W*id\W*\) on delete restrict/,
      );
      expect(invoices).to.contain('invoices_customer_id_index');
      for (const field of [
        'customer_id',
        'number',
        'total',
        'amount',
        'due_at',
        'paid',
        'tier',
        'created_at',
        'updated_at',
      ]) {
        expect(invoices).to.contain(`invoices_${field}_id_index`);
      }
      for (const field of ['score', 'contact', 'ext']) {
        expect(invoices).to.contain(`invoices_${field}_nulls_last_asc_index`);
        expect(invoices).to.contain(`invoices_${field}_nulls_last_desc_index`);
      }
      expect(invoices).not.to.contain('invoices_notes_');
      const customers = await schemaOf(database(), 'customers', postgres);
      for (const field of ['name', 'email', 'tier']) expect(customers).to.contain(`customers_${field}_id_index`);
    });

    it('round-trips a row with every field type through the repository, nulls included', async () => {
      await clear();
      await sqlRepository(database(), Customer).add(aCustomer(uuid(0xfff0)));
      const repository = sqlRepository(database(), Invoice);
      const full = INVOICES.make(uuid(1), {
        score: 7,
        contact: 'x@example.com',
        ext: uuid(99),
        paid: true,
        tier: 'pro',
        total: 12.25,
        amount: '1234567890.12',
        dueAt: at(0.001),
      });
      const empty = INVOICES.make(uuid(2), { notes: null });
      for (const row of [full, empty]) {
        await repository.add(row);
        expect((await repository.findById(row.toProps().id as string))?.toProps()).to.deep.equal(row.toProps());
      }
      await clear();
    });

    if (target.persistent) {
      it('gives a database seeded before the rendered migrations the resources’ rules, once', async () => {
        const url = target.url()!;
        await tearDown();
        // The service's migrations without the rendered ones: a database from before the resources.
        const rendered = new Set(migrations.map((m) => m.name));
        const before = await connectDatabase(url, {
          migrations: (await discoverMigrations()).filter((m) => !rendered.has(m.name)),
        });
        await before.migrate();
        const knex = knexOf(before);
        await knex('access_rules').delete();
        await knex('app_meta').delete();
        const seeded: StoredRule[] = [{ kind: 'p', values: ['admin', '/api/v1/*', '.*'] }];
        await new MikroOrmPolicyRuleStore(before).seed(seeded);
        await before.close();
        db = await openWithResources(url);
        const grants = [...accessGrants(CUSTOMER), ...accessGrants(INVOICE)].map((g): StoredRule => ({
          kind: 'p',
          values: [g.role, g.path, g.action],
        }));
        expect(await new MikroOrmPolicyRuleStore(database()).load()).to.deep.equal([...seeded, ...grants]);
        await knexOf(database())('access_rules').delete();
        await knexOf(database())('app_meta').delete();
      });
    }

    it('adds no rules to a fresh database', async () => {
      await knexOf(database())('access_rules').delete();
      await knexOf(database())('app_meta').delete();
      await removeResources(database());
      await database().close();
      db = await openWithResources(target.url()!);
      expect(await new MikroOrmPolicyRuleStore(database()).load()).to.equal(undefined);
      const [count] = await knexOf(database())('access_rules').count({ n: '*' });
      expect(Number(count?.n)).to.equal(0);
    });
  });

  resourceRepositoryContract(`rendered customers on ${target.name}`, CUSTOMERS, {
    setUp,
    fresh: async () => {
      await clear();
      const repository = sqlRepository(database(), Customer);
      return { repository, addMany: (rows) => insertMany(database(), CUSTOMER_TABLE, rows, !postgres) };
    },
    tearDown: async () => undefined,
  });

  resourceRepositoryContract(`rendered invoices on ${target.name} (a reference to rendered customers)`, INVOICES, {
    setUp,
    fresh: async () => {
      await clear();
      const customers = sqlRepository(database(), Customer);
      const repository = sqlRepository(database(), Invoice);
      return {
        repository,
        referenced: { add: (id) => customers.add(aCustomer(id)), delete: (id) => customers.delete(id) },
        addMany: (rows) => insertMany(database(), INVOICE_TABLE, rows, !postgres),
      };
    },
    tearDown,
  });
}
