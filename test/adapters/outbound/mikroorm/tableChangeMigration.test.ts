import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { expect } from 'chai';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import { POLICY_SEEDED_KEY } from '../../../../src/adapters/outbound/mikroorm/schemas/AccessRuleSchema.js';
import { tableChangeMigration } from '../../../../src/adapters/outbound/mikroorm/migrations/tableChangeMigration.js';
import {
  createResourceTable,
  tableOf,
  type TableSpec,
} from '../../../../src/adapters/outbound/mikroorm/resourceTable.js';
import {
  tableChangeProblems,
  type TableChange,
} from '../../../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import { SqlResourceRepository } from '../../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { ConflictError } from '../../../../src/domain/shared/DomainError.js';
import { declareResource, entityOf, field } from '../../../../src/domain/shared/resource.js';
import { discoverMigrations } from '../../../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { connectDatabase } from '../../../support/database.js';
import { insertRows } from '../../../support/resource/repository.js';
import { sqlTargets } from '../contracts/databases.js';

/** Three tables as their first migration makes them: owners, their items, and tags naming items. */
const OWNERS: TableSpec = {
  table: 'test_owners',
  columns: { name: { kind: 'string', length: 40 } },
  sortable: ['name', 'created_at', 'updated_at'],
  search: 'name',
};
const ITEMS: TableSpec = {
  table: 'test_items',
  columns: {
    ownerId: { kind: 'ref', references: { table: 'test_owners', target: 'test owner' } },
    label: { kind: 'string', length: 20 },
    note: { kind: 'text', optional: true },
  },
  sortable: ['owner_id', 'label', 'created_at', 'updated_at'],
};
const TAGS: TableSpec = {
  table: 'test_tags',
  columns: { itemId: { kind: 'ref', references: { table: 'test_items', target: 'test item' } } },
  sortable: ['item_id', 'created_at', 'updated_at'],
};

class CreateTestTables extends Migration {
  override async up(): Promise<void> {
    for (const spec of [OWNERS, ITEMS, TAGS])
      for (const statement of createResourceTable(this.getKnex(), spec)) this.addSql(statement);
  }
}

/** Items, a week later: `status` and `price` added (required, with defaults), `paid_at` added (optional), `note` removed, `label` widened. */
const ITEMS_2: TableSpec = {
  table: 'test_items',
  columns: {
    ownerId: { kind: 'ref', references: { table: 'test_owners', target: 'test owner' } },
    label: { kind: 'string', length: 60 },
    status: { kind: 'enum', values: ['draft', 'sent'] },
    price: { kind: 'decimal', precision: 10, scale: 2 },
    paidAt: { kind: 'datetime', optional: true },
    urgent: { kind: 'boolean' },
  },
  sortable: ['owner_id', 'label', 'status', 'price', 'paid_at', 'urgent', 'created_at', 'updated_at'],
};
const ADD_FIELDS: TableChange = {
  before: ITEMS,
  after: ITEMS_2,
  defaults: { status: 'draft', price: '1.50', urgent: true },
};
/** The week after: the reference to owners removed (SQLite rebuilds the table, which tags refer to). */
const ITEMS_3: TableSpec = {
  table: 'test_items',
  columns: Object.fromEntries(Object.entries(ITEMS_2.columns).filter(([key]) => key !== 'ownerId')),
  sortable: ITEMS_2.sortable.filter((f) => f !== 'owner_id'),
};
const DROP_REFERENCE: TableChange = { before: ITEMS_2, after: ITEMS_3 };
/** Then a required reference added back (a rebuild again), every row given one owner. */
const ITEMS_4: TableSpec = {
  table: 'test_items',
  columns: {
    ...ITEMS_3.columns,
    keeperId: { kind: 'ref', references: { table: 'test_owners', target: 'test owner' } },
  },
  sortable: [...ITEMS_3.sortable.slice(0, -2), 'keeper_id', 'created_at', 'updated_at'],
};
const addKeeper = (keeper: string): TableChange => ({
  before: ITEMS_3,
  after: ITEMS_4,
  defaults: { keeperId: keeper },
});

/** The items as the service reads them after the first change. */
const ITEM = declareResource({
  name: 'test_item',
  plural: 'test_items',
  fields: {
    ownerId: field.ref('test_owner', 'test_owners'),
    label: field.string(1, 60),
    status: field.enum(['draft', 'sent']),
    price: field.decimal(10, 2),
    paidAt: field.datetime().optional(),
    urgent: field.boolean(),
  },
});
class Item extends entityOf(ITEM) {}

const NAMES = ['TestCreateTables', 'TestAddFields', 'TestDropReference', 'TestAddKeeper'];
const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const T0 = new Date('2026-01-01T00:00:00.000Z');
const stored = { version: 1, createdAt: T0, updatedAt: T0 };

describe('migrations that change a resource table keep its rows (generate field, generate migration)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-table-change-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a type change, a required field without a default, and a field made optional', () => {
    const changed: TableSpec = { ...ITEMS, columns: { ...ITEMS.columns, label: { kind: 'integer' } } };
    expect(tableChangeProblems({ before: ITEMS, after: changed })).to.deep.equal([
      'test_items.label: its type changed (string → integer); the stored values cannot be converted by a migration — remove the field and add one under a new name',
    ]);
    expect(
      tableChangeProblems({ before: ITEMS, after: ITEMS_2, defaults: { status: 'draft', urgent: true } }),
    ).to.deep.equal([
      'test_items.price: a new required field needs a value for the rows stored before it (--default price=<value>)',
    ]);
    const loosened: TableSpec = {
      ...ITEMS,
      columns: { ...ITEMS.columns, label: { kind: 'string', length: 20, optional: true } },
    };
    expect(tableChangeProblems({ before: ITEMS, after: loosened })[0]).to.match(/label: it became optional/);
  });

  // A restart (a new connection to the same database) between migrations: the targets that keep their data.
  for (const target of sqlTargets(dir, 'table-change.sqlite').filter((t) => t.persistent)) {
    describe(`on ${target.name}`, function () {
      let db: Database | undefined;
      const url = () => target.url() as string;
      const execute = (sql: string, params: unknown[] = []) =>
        (db as Database).orm.em.getConnection().execute(sql, params, 'all') as Promise<Record<string, unknown>[]>;
      const postgres = () => (db as Database).sql.dialect === 'postgresql';
      /** Connects with the service's migrations and the first `steps` of this suite's, and migrates. */
      const migrateTo = async (steps: MigrationObject[]) => {
        await db?.close();
        db = await connectDatabase(url(), { migrations: [...(await discoverMigrations()), ...steps] });
        return db.migrate();
      };
      const create = { name: NAMES[0] as string, class: CreateTestTables };
      const add = { name: NAMES[1] as string, class: tableChangeMigration(ADD_FIELDS) };
      const drop = { name: NAMES[2] as string, class: tableChangeMigration(DROP_REFERENCE) };
      const indexes = async (): Promise<string[]> =>
        (
          await execute(
            postgres()
              ? "select indexname as name from pg_indexes where tablename = 'test_items'"
              : "select name from sqlite_master where type = 'index' and tbl_name = 'test_items' and sql is not null",
          )
        )
          .map((row) => String(row.name))
          .sort();

      before(async function () {
        if (!target.url()) return this.skip();
        db = await connectDatabase(url());
        await db.migrate();
        for (const table of ['test_tags', 'test_items', 'test_owners']) await execute(`drop table if exists ${table}`);
        await execute(`delete from mikro_orm_migrations where name in (${NAMES.map(() => '?').join(', ')})`, NAMES);
        await migrateTo([create]);
        const sqlite = !postgres();
        await insertRows(
          db.orm,
          OWNERS,
          [1, 2].map((n) => ({ id: uuid(n), name: `owner ${n}`, ...stored })),
          sqlite,
        );
        await insertRows(
          db.orm,
          ITEMS,
          [1, 2, 3].map((n) => ({
            id: uuid(10 + n),
            ownerId: uuid(1),
            label: `item ${n}`,
            note: n === 1 ? 'kept?' : null,
            ...stored,
          })),
          sqlite,
        );
        await insertRows(db.orm, TAGS, [{ id: uuid(21), itemId: uuid(11), ...stored }], sqlite);
      });
      after(async () => {
        if (db) await execute("delete from access_rules where v1 like '/api/v1/test-%'");
        if (db) await execute("delete from app_meta where key = ? and value = 'test'", [POLICY_SEEDED_KEY]);
        if (db)
          for (const table of ['test_tags', 'test_items', 'test_owners'])
            await execute(`drop table if exists ${table}`);
        await db?.close();
      });

      it('adds required fields with their defaults and an optional one as null, drops a field, keeps every row', async () => {
        expect(await migrateTo([create, add])).to.deep.equal([NAMES[1]]);
        const repository = new SqlResourceRepository(
          db as Database,
          tableOf(Item, (id) => new ConflictError('x', id)),
        );
        const page = await repository.list({ page: 1, perPage: 10, sort: 'label', order: 'asc' });
        expect(page.items.map((i) => [i.label, i.status, i.price, i.paidAt, i.urgent])).to.deep.equal([
          ['item 1', 'draft', '1.50', null, true],
          ['item 2', 'draft', '1.50', null, true],
          ['item 3', 'draft', '1.50', null, true],
        ]);
        const columns = postgres()
          ? (
              await execute(
                "select column_name as name from information_schema.columns where table_name = 'test_items'",
              )
            ).map((r) => r.name)
          : (await execute('pragma table_info(test_items)')).map((r) => r.name);
        expect(columns).to.not.include('note');
        expect(await indexes()).to.include.members([
          'test_items_status_id_index',
          'test_items_price_id_index',
          'test_items_paid_at_nulls_last_asc_index',
          'test_items_paid_at_nulls_last_desc_index',
        ]);
      });

      it('takes the new fields on create and update, sorts and filters on them', async () => {
        const repository = new SqlResourceRepository(
          db as Database,
          tableOf(Item, (id) => new ConflictError('x', id)),
        );
        await repository.add(
          Item.create(
            {
              id: uuid(14),
              ownerId: uuid(2),
              label: 'item 4',
              status: 'sent',
              price: '0.99',
              paidAt: T0,
              urgent: false,
            },
            T0,
          ),
        );
        const byPrice = await repository.list({ page: 1, perPage: 10, sort: 'price', order: 'asc' });
        expect(byPrice.items.map((i) => i.price)).to.deep.equal(['0.99', '1.50', '1.50', '1.50']);
        await repository.update(uuid(11), (item) => item.update({ status: 'sent', paidAt: T0 }, T0));
        const byStatus = await repository.list({ page: 1, perPage: 10, sort: 'status', order: 'desc' });
        expect(
          byStatus.items
            .slice(0, 2)
            .map((i) => i.id)
            .sort(),
        ).to.deep.equal([uuid(11), uuid(14)]);
        const owned = await repository.list({
          page: 1,
          perPage: 10,
          sort: 'created_at',
          order: 'asc',
          filters: { owner_id: uuid(2) },
        });
        expect(owned.items.map((i) => i.id)).to.deep.equal([uuid(14)]);
      });

      it('removes a reference, rebuilding the table on SQLite while another table refers to it; its rows and their references stay', async () => {
        expect(await migrateTo([create, add, drop])).to.deep.equal([NAMES[2]]);
        expect((await execute('select id from test_items order by id')).map((r) => r.id)).to.deep.equal(
          [11, 12, 13, 14].map(uuid),
        );
        expect(await indexes()).to.not.include('test_items_owner_id_id_index');
        // The tags' foreign key still holds: a tag naming no item is refused, and an item named by a tag cannot go.
        const refused = async (sql: string) => {
          try {
            await execute(sql);
          } catch {
            return true;
          }
          return false;
        };
        expect(
          await refused(
            `insert into test_tags (id, item_id, version, created_at, updated_at) values ('${uuid(22)}', '${uuid(99)}', 1, ${postgres() ? 'now(), now()' : '0, 0'})`,
          ),
        ).to.equal(true);
        expect(await refused(`delete from test_items where id = '${uuid(11)}'`)).to.equal(true);
        // Owners are no longer referred to by items.
        expect(await refused(`delete from test_owners where id = '${uuid(2)}'`)).to.equal(false);
      });

      it('refuses a required reference whose default names no row, changing nothing; takes one that does', async () => {
        const bad = { name: NAMES[3] as string, class: tableChangeMigration(addKeeper(uuid(77))) };
        let failure: unknown;
        await migrateTo([create, add, drop, bad]).catch((error: unknown) => (failure = error));
        expect(String(failure)).to.match(/foreign key|test_owners|missing row/i);
        expect((await execute('select count(*) as n from test_items'))[0]?.n).to.satisfy(
          (n: unknown) => Number(n) === 4,
        );
        // With the nested list's rules granted to a database seeded before, and an old route's taken back.
        await execute("delete from access_rules where v1 like '/api/v1/test-%'");
        await execute('delete from app_meta where key = ?', [POLICY_SEEDED_KEY]);
        await execute('insert into app_meta (key, value) values (?, ?)', [POLICY_SEEDED_KEY, 'test']);
        await execute("insert into access_rules (kind, v0, v1, v2) values ('p', 'user', '/api/v1/test-gone', 'GET')");
        const good = {
          name: NAMES[3] as string,
          class: tableChangeMigration(addKeeper(uuid(1)), {
            grant: [{ role: 'user', path: '/api/v1/test-owners/{id}/test-items', action: 'GET' }],
            revoke: [{ role: 'user', path: '/api/v1/test-gone', action: 'GET' }],
          }),
        };
        expect(await migrateTo([create, add, drop, good])).to.deep.equal([NAMES[3]]);
        expect((await execute('select distinct keeper_id from test_items')).map((r) => r.keeper_id)).to.deep.equal([
          uuid(1),
        ]);
        expect(await indexes()).to.include('test_items_keeper_id_index');
        const rules = await execute("select v0, v1, v2 from access_rules where v1 like '/api/v1/test-%'");
        expect(rules).to.deep.equal([{ v0: 'user', v1: '/api/v1/test-owners/{id}/test-items', v2: 'GET' }]);
      });

      it('undoes a change that removed no required field (down), and refuses one that did', async () => {
        const migrator = (db as Database).orm.getMigrator();
        await migrator.down(NAMES[3] as string);
        expect((await execute('select count(*) as n from test_items'))[0]?.n).to.satisfy(
          (n: unknown) => Number(n) === 4,
        );
        let failure: unknown;
        await migrator.down(NAMES[2] as string).catch((error: unknown) => (failure = error));
        expect(String(failure)).to.match(/cannot be put back/);
      });
    });
  }
});
