import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { Migration } from '@mikro-orm/migrations';
import { expect } from 'chai';
import { memoryRepositoryOf } from '../../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import { tableChangeMigration } from '../../../../src/adapters/outbound/mikroorm/migrations/tableChangeMigration.js';
import {
  createResourceTable,
  tableOf,
  tableSpecOf,
  type TableSpec,
} from '../../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { changeResourceTable, sameTable } from '../../../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import { discoverMigrations } from '../../../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { SqlResourceRepository } from '../../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { NotUniqueError } from '../../../../src/domain/shared/DomainError.js';
import { declareResource, entityOf, field } from '../../../../src/domain/shared/resource.js';
import type { ResourceRepository } from '../../../../src/domain/shared/ResourceRepository.js';
import { connectDatabase } from '../../../support/database.js';
import { insertRows } from '../../../support/resource/repository.js';
import { describeUniqueRepository, type UniqueEngine } from '../../../support/resource/unique.js';
import { SqlDatabaseFixture, sqlTargets } from '../contracts/databases.js';

/** A resource with a required unique string, an optional unique e-mail, and a plain label. */
const CODE = declareResource({
  name: 'test_code',
  plural: 'test_codes',
  fields: {
    code: field.string(1, 40).unique(),
    contact: field.email().optional().unique(),
    label: field.string(1, 40),
  },
});
class Code extends entityOf(CODE) {}
type Row = InstanceType<typeof Code>;

const dir = mkdtempSync(join(tmpdir(), 'portico-unique-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const T0 = new Date('2026-01-01T00:00:00.000Z');
const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const stored = { version: 1, createdAt: T0, updatedAt: T0 };

/** The database's knex (its dialect writes the statements). */
const knexOf = (db: Database) => (db.orm.em.getConnection() as AbstractSqlConnection).getKnex();

/** Runs `sql` on the database, answering its rows. */
const executeOn = (db: Database, sql: string, params: unknown[] = []) =>
  db.orm.em.getConnection().execute(sql, params, 'all') as Promise<Record<string, unknown>[]>;

/** Drops the test table and makes it again from the declaration (its unique indexes with it). */
async function freshTable(db: Database, spec: TableSpec = tableSpecOf(CODE)): Promise<void> {
  await executeOn(db, `drop table if exists ${spec.table}`);
  const knex = knexOf(db);
  for (const statement of createResourceTable(knex, spec)) await executeOn(db, statement);
}

const memory: UniqueEngine<never> = {
  name: 'memory',
  setUp: async () => undefined,
  fresh: async () => memoryRepositoryOf(Code as never) as never,
  tearDown: async () => undefined,
};
const sqlEngines = sqlTargets(dir, 'unique.sqlite').map((target): UniqueEngine<never> => {
  const fixture = new SqlDatabaseFixture(target);
  return {
    name: target.name,
    setUp: () => fixture.open(),
    fresh: async () => {
      await freshTable(fixture.db);
      return new SqlResourceRepository(fixture.db, tableOf(Code)) as never;
    },
    tearDown: async () => {
      if (target.url()) await executeOn(fixture.db, 'drop table if exists test_codes').catch(() => undefined);
      await fixture.close();
    },
  };
});
describeUniqueRepository(Code as never, [memory, ...sqlEngines]);

describe('unique indexes of resource tables', () => {
  it('a unique field is a unique index named <table>_<column>_unique, on both engines', async () => {
    for (const url of ['sqlite::memory:']) {
      const db = await connectDatabase(url);
      const knex = knexOf(db);
      expect(createResourceTable(knex, tableSpecOf(CODE))).to.include.members([
        'create unique index "test_codes_code_unique" on "test_codes" ("code")',
        'create unique index "test_codes_contact_unique" on "test_codes" ("contact")',
      ]);
      await db.close();
    }
  });

  it('making a field unique or not is a change of the table; a SQLite rebuild keeps the unique indexes', async () => {
    const spec = tableSpecOf(CODE);
    const plain: TableSpec = { ...spec, columns: { ...spec.columns, code: { kind: 'string', length: 40 } } };
    expect(sameTable(plain, spec)).to.equal(false);
    const db = await connectDatabase('sqlite::memory:');
    const knex = knexOf(db);
    expect(changeResourceTable(knex, { before: plain, after: spec }).statements).to.deep.equal([
      'create unique index "test_codes_code_unique" on "test_codes" ("code")',
    ]);
    expect(changeResourceTable(knex, { before: spec, after: plain }).statements).to.deep.equal([
      'drop index if exists "test_codes_code_unique"',
    ]);
    // A required reference added: SQLite rebuilds the table, and makes its unique indexes again.
    const withRef: TableSpec = {
      ...spec,
      columns: { ...spec.columns, ownerId: { kind: 'ref', references: { table: 'test_owners', target: 'owner' } } },
    };
    const rebuilt = changeResourceTable(knex, { before: spec, after: withRef, defaults: { ownerId: uuid(1) } });
    expect(rebuilt.rebuild).to.equal(true);
    expect(rebuilt.statements).to.include('create unique index "test_codes_code_unique" on "test_codes" ("code")');
    await db.close();
  });

  for (const target of sqlTargets(dir, 'unique-index.sqlite')) {
    describe(`on ${target.name}`, function () {
      this.timeout(30_000);
      const fixture = new SqlDatabaseFixture(target);
      let rows: ResourceRepository<Row>;
      before(async function () {
        if (await fixture.open()) return this.skip();
      });
      beforeEach(async () => {
        await freshTable(fixture.db);
        rows = new SqlResourceRepository(fixture.db, tableOf(Code)) as never;
      });
      after(async () => {
        if (target.url()) await executeOn(fixture.db, 'drop table if exists test_codes').catch(() => undefined);
        await fixture.close();
      });
      const make = (n: number, values: { code?: string; label?: string; contact?: string | null } = {}) =>
        Code.create({ id: uuid(n), code: `c${n}`, contact: null, label: `l${n}`, ...values }, T0);

      it('an index added by hand answers 409 naming its column — on a column and on an expression of it', async () => {
        await executeOn(fixture.db, 'create unique index test_codes_label_by_hand on test_codes (label)');
        await rows.add(make(1, { label: 'same' }));
        const error = await rows.add(make(2, { label: 'same' })).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(NotUniqueError);
        expect((error as NotUniqueError).fields).to.deep.equal([
          { field: 'label', message: 'must be unique: another test code has this value' },
        ]);
        await executeOn(fixture.db, 'drop index test_codes_label_by_hand');
        await executeOn(fixture.db, 'create unique index test_codes_lower_label on test_codes (lower(label))');
        const lower = await rows.add(make(3, { label: 'SAME' })).catch((e: unknown) => e);
        expect(lower).to.be.instanceOf(NotUniqueError);
        expect((lower as NotUniqueError).fields.map((f) => f.field)).to.deep.equal(['label']);
      });
    });
  }
});

/** The table before `code` was unique, with rows two of which share a code. */
const PLAIN: TableSpec = {
  ...tableSpecOf(CODE),
  columns: { ...tableSpecOf(CODE).columns, code: { kind: 'string', length: 40 } },
};
class CreatePlainCodes extends Migration {
  override async up(): Promise<void> {
    for (const statement of createResourceTable(this.getKnex(), PLAIN)) this.addSql(statement);
  }
}
/** `nick` added as a required unique field with one default for every stored row: duplicates too. */
const WITH_NICK: TableSpec = {
  ...tableSpecOf(CODE),
  columns: { ...tableSpecOf(CODE).columns, nick: { kind: 'string', length: 20, unique: true } },
};
const NAMES = ['TestCreatePlainCodes', 'TestCodesUnique', 'TestCodesNick', 'TestCodesNotUnique'];

describe('a migration that makes a field unique (generate migration after `.unique()` is declared)', () => {
  for (const target of sqlTargets(dir, 'unique-migration.sqlite').filter((t) => t.persistent)) {
    describe(`on ${target.name}`, function () {
      this.timeout(30_000);
      let db: Database | undefined;
      const execute = (sql: string, params: unknown[] = []) => executeOn(db as Database, sql, params);
      const migrateTo = async (steps: MigrationObject[]) => {
        await db?.close();
        db = await connectDatabase(target.url() as string, { migrations: [...(await discoverMigrations()), ...steps] });
        return db.migrate();
      };
      const create = { name: NAMES[0] as string, class: CreatePlainCodes };
      const unique = {
        name: NAMES[1] as string,
        class: tableChangeMigration({ before: PLAIN, after: tableSpecOf(CODE) }),
      };
      const nick = {
        name: NAMES[2] as string,
        class: tableChangeMigration({ before: tableSpecOf(CODE), after: WITH_NICK, defaults: { nick: 'same' } }),
      };
      const undo = {
        name: NAMES[3] as string,
        class: tableChangeMigration({ before: tableSpecOf(CODE), after: PLAIN }),
      };
      const indexes = async (): Promise<string[]> =>
        (
          await execute(
            (db as Database).sql.dialect === 'postgresql'
              ? "select indexname as name from pg_indexes where tablename = 'test_codes'"
              : "select name from sqlite_master where type = 'index' and tbl_name = 'test_codes' and sql is not null",
          )
        ).map((row) => String(row.name));
      const applied = async () =>
        (
          await execute(
            `select name from mikro_orm_migrations where name in (${NAMES.map(() => '?').join(', ')})`,
            NAMES,
          )
        ).map((row) => row.name);
      const failure = (steps: MigrationObject[]) =>
        migrateTo(steps).then(
          () => undefined,
          (error: unknown) => error,
        );

      before(async function () {
        if (!target.url()) return this.skip();
        db = await connectDatabase(target.url() as string);
        await db.migrate();
        await execute('drop table if exists test_codes');
        await execute(`delete from mikro_orm_migrations where name in (${NAMES.map(() => '?').join(', ')})`, NAMES);
        await migrateTo([create]);
        await insertRows(
          (db as Database).orm,
          PLAIN,
          [
            { id: uuid(1), code: 'A-1', contact: null, label: 'one', ...stored },
            { id: uuid(2), code: 'A-1', contact: null, label: 'two', ...stored },
            { id: uuid(3), code: 'B-2', contact: null, label: 'three', ...stored },
          ],
          (db as Database).sql.dialect !== 'postgresql',
        );
      });
      after(async () => {
        if (!db) return;
        await execute('drop table if exists test_codes');
        await execute(`delete from mikro_orm_migrations where name in (${NAMES.map(() => '?').join(', ')})`, NAMES);
        await db.close();
      });

      it('with duplicates stored, fails naming the field and a duplicate value, and changes nothing', async () => {
        const error = await failure([create, unique]);
        expect(String(error)).to.include(
          'test_codes.code cannot be made unique: 2 rows hold the value "A-1"; make the values unique, then migrate again (nothing was changed)',
        );
        expect(await indexes()).to.not.include('test_codes_code_unique');
        expect(await applied()).to.deep.equal([NAMES[0]]);
        expect((await execute('select count(*) as n from test_codes'))[0]?.n).to.satisfy(
          (n: unknown) => Number(n) === 3,
        );
      });

      it('without duplicates, creates the unique index, and a duplicate write is then refused', async () => {
        await execute(`update test_codes set code = 'A-2' where id = ?`, [uuid(2)]);
        expect(await migrateTo([create, unique])).to.deep.equal([NAMES[1]]);
        expect(await indexes()).to.include('test_codes_code_unique');
        const rows = new SqlResourceRepository(db as Database, tableOf(Code));
        const error = await rows
          .add(Code.create({ id: uuid(4), code: 'A-1', contact: null, label: 'four' }, T0))
          .catch((e: unknown) => e);
        expect(error).to.be.instanceOf(NotUniqueError);
      });

      it('adding a required unique field whose default every stored row would share fails, naming it and the default', async () => {
        const error = await failure([create, unique, nick]);
        expect(String(error)).to.include('test_codes.nick cannot be made unique: 3 rows hold the value "same"');
        const columns =
          (db as Database).sql.dialect === 'postgresql'
            ? await execute(
                "select column_name as name from information_schema.columns where table_name = 'test_codes'",
              )
            : await execute('pragma table_info(test_codes)');
        expect(columns.map((c) => c.name)).to.not.include('nick');
      });

      it('a field no longer unique drops its index', async () => {
        expect(await migrateTo([create, unique, undo])).to.deep.equal([NAMES[3]]);
        expect(await indexes()).to.not.include('test_codes_code_unique');
        expect(await indexes()).to.include('test_codes_contact_unique');
      });
    });
  }
});
