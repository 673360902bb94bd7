import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { expect } from 'chai';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import {
  discoverMigrations,
  migrationFileName,
  migrationFileNames,
  MIGRATIONS_FOLDER,
} from '../../../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { connectDatabase } from '../../../support/database.js';
import { sqlTargets } from '../contracts/databases.js';

describe('migration files (src/adapters/outbound/mikroorm/migrationFiles.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-migration-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads legacy and timestamped names, their classes, and takes any other file for a helper', () => {
    expect(migrationFileName('Migration0002Products')).to.include({ className: 'Migration0002Products' });
    expect(migrationFileName('20261127T0512_books_add_subtitle')).to.include({
      className: 'Migration20261127T0512BooksAddSubtitle',
    });
    expect(migrationFileName('20261127T051233_books')).to.include({ className: 'Migration20261127T051233Books' });
    for (const helper of ['accessRules', 'tableChangeMigration', 'index', '2026_books', '20261127T0512-books'])
      expect(migrationFileName(helper), helper).to.equal(undefined);
  });

  it('orders legacy ones by their counter first, then by time (a minute before its seconds), whatever the slugs', () => {
    const files = [
      '20261127T0512_zebras.ts',
      '20261127T051233_apples.ts',
      'Migration0010Later.ts',
      'Migration0002Products.ts',
      '20261126T2359_zoo.ts',
      '20261127T0513_aardvarks.ts',
      'accessRules.ts',
      '20261127T0512_books.js',
      'Migration0001Users.d.ts',
    ];
    for (const file of files) writeFileSync(join(dir, file), '');
    expect(migrationFileNames(dir, 'ts').map((f) => f.name)).to.deep.equal([
      'Migration0002Products',
      'Migration0010Later',
      '20261126T2359_zoo',
      '20261127T0512_zebras',
      '20261127T051233_apples',
      '20261127T0513_aardvarks',
    ]);
    expect(migrationFileNames(dir, 'js').map((f) => f.name)).to.deep.equal(['20261127T0512_books']);
  });

  it('imports every migration file of the extension it runs from, each under its class name', async () => {
    writeFileSync(join(dir, '20261127T0512_books.js'), 'export class Migration20261127T0512Books {}\n');
    writeFileSync(join(dir, 'Migration0001Users.js'), 'export class Migration0001Users {}\nexport const X = 1;\n');
    writeFileSync(join(dir, 'helper.js'), 'throw new Error("a helper is not imported");\n');
    const found = await discoverMigrations(dir, 'js');
    expect(found.map((m) => [m.name, (m.class as { name: string }).name])).to.deep.equal([
      ['Migration0001Users', 'Migration0001Users'],
      ['Migration20261127T0512Books', 'Migration20261127T0512Books'],
    ]);
  });

  it('refuses a migration file that does not export the class its name gives, naming the file', async () => {
    writeFileSync(join(dir, '20261127T0512_books_add_subtitle.js'), 'export class Migration20261127T0512Books {}\n');
    const error = await discoverMigrations(dir, 'js').then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.equal(
      'migration 20261127T0512_books_add_subtitle.js: it must export its class Migration20261127T0512BooksAddSubtitle',
    );
  });

  it("finds the service's own migrations from its sources, helpers left out", async () => {
    const found = await discoverMigrations();
    expect(found.map((m) => m.name)).to.include.members(['Migration0001Users', 'Migration0005Jobs']);
    expect(found.every((m) => m.file.startsWith(MIGRATIONS_FOLDER) && m.file.endsWith('.ts'))).to.equal(true);
    expect(found.map((m) => m.name)).not.to.include.members(['accessRules', 'tableChangeMigration']);
  });
});

/** A migration that records that it ran: a row in `merge_log` (made by the first one). */
function logging(label: string, first = false): MigrationObject['class'] {
  return class extends Migration {
    override async up(): Promise<void> {
      if (first) this.addSql('create table merge_log (label varchar(40) not null)');
      this.addSql(`insert into merge_log (label) values ('${label}')`);
    }
  };
}

describe('migrations apply in name order, also one that arrives after later ones were applied', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-migration-order-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'order.sqlite').filter((t) => t.persistent)) {
    describe(`on ${target.name}`, () => {
      let db: Database | undefined;
      const names = ['Migration20261120T0900MergeBase', 'Migration20261127T0512MergeA', 'Migration20261127T0630MergeB'];
      const [base, a, b] = names.map((name, i) => ({ name, class: logging(name, i === 0) })) as [
        MigrationObject,
        MigrationObject,
        MigrationObject,
      ];
      const open = async (extra: MigrationObject[]) => {
        await db?.close();
        db = await connectDatabase(target.url() as string, {
          migrations: [...(await discoverMigrations()), ...extra],
        });
        return db;
      };
      const labels = async () =>
        (
          (await db!.orm.em.getConnection().execute('select label from merge_log', [], 'all')) as { label: string }[]
        ).map((row) => row.label);

      before(async function () {
        if (!target.url()) return this.skip();
        const clean = await open([]);
        await clean.orm.em.getConnection().execute('drop table if exists merge_log');
        await clean.orm.em
          .getConnection()
          .execute(`delete from mikro_orm_migrations where name in (${names.map((n) => `'${n}'`).join(', ')})`)
          .catch(() => undefined);
      });
      after(async () => {
        if (!db) return;
        await db.orm.em.getConnection().execute('drop table if exists merge_log');
        await db.orm.em
          .getConnection()
          .execute(`delete from mikro_orm_migrations where name in (${names.map((n) => `'${n}'`).join(', ')})`);
        await db.close();
      });

      it('a database that ran the later one (B) applies the earlier one (A) that came with a merge, and nothing twice', async () => {
        await open([base, b]);
        await db!.migrate();
        expect(await labels()).to.deep.equal([base.name, b.name]);
        await open([base, a, b]);
        expect(await db!.pendingMigrations()).to.deep.equal([a.name]);
        expect(await db!.migrate()).to.deep.equal([a.name]);
        expect(await labels()).to.deep.equal([base.name, b.name, a.name]);
        expect(await db!.pendingMigrations()).to.deep.equal([]);
        expect(await db!.migrate()).to.deep.equal([]);
      });
    });
  }
});
