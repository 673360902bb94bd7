import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { expect } from 'chai';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import {
  createResourceTable,
  tableOf,
  type TableSpec,
} from '../../../../src/adapters/outbound/mikroorm/resourceTable.js';
import { changeResourceTable } from '../../../../src/adapters/outbound/mikroorm/resourceTableChange.js';
import { SqlResourceRepository } from '../../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import type { StoredFile } from '../../../../src/domain/shared/files.js';
import { declareResource, entityOf, field, KB, MB } from '../../../../src/domain/shared/resource.js';
import { connectDatabase } from '../../../support/database.js';
import { sqlTargets } from '../contracts/databases.js';

/** A table with a file field, then a second one added, the first dropped, and the table rebuilt (SQLite). */
const V1: TableSpec = {
  table: 'test_files',
  columns: { title: { kind: 'string', length: 40 }, photo: { kind: 'file', optional: true } },
  sortable: ['title', 'created_at', 'updated_at'],
};
const V2: TableSpec = { ...V1, columns: { ...V1.columns, scan: { kind: 'file', optional: true } } };
const V3: TableSpec = { ...V1, columns: { title: V1.columns.title!, scan: { kind: 'file', optional: true } } };
/** A required field whose backfill is not its default: SQLite rebuilds the table to add it. */
const V4: TableSpec = {
  ...V3,
  columns: { ...V3.columns, kind: { kind: 'string', length: 10, default: 'a' } },
};

const TEST_FILE_V2 = declareResource({
  name: 'test_file',
  plural: 'test_files',
  fields: {
    title: field.string(1, 40),
    photo: field.file(['image/*'], 5 * MB).optional(),
    scan: field.file(['application/pdf'], 512 * KB).optional(),
  },
});
const TEST_FILE_V4 = declareResource({
  name: 'test_file',
  plural: 'test_files',
  fields: {
    title: field.string(1, 40),
    scan: field.file(['application/pdf'], 512 * KB).optional(),
    kind: field.string(1, 10).default('a'),
  },
});
class FileV2 extends entityOf(TEST_FILE_V2) {}
class FileV4 extends entityOf(TEST_FILE_V4) {}

const T0 = new Date('2026-01-01T00:00:00.000Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const photo: StoredFile = {
  key: `test_files/${id(1)}/photo/0c0ffee0`,
  size: 123456,
  contentType: 'image/png',
  sha256: 'b'.repeat(64),
  uploadedAt: new Date('2026-01-02T03:04:05.678Z'),
};
const scan: StoredFile = { ...photo, key: `test_files/${id(1)}/scan/1`, contentType: 'application/pdf', size: 2048 };

describe('file columns: created, added, dropped and rebuilt with the rows kept (SQLite and PostgreSQL)', function () {
  this.timeout(30_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-file-columns-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'files.sqlite')) {
    describe(`on ${target.name}`, () => {
      let db: Database | undefined;
      const knex = () => ((db as Database).orm.em.getConnection() as AbstractSqlConnection).getKnex();
      const run = async (statements: readonly string[]) => {
        for (const statement of statements) await knex().raw(statement);
      };
      const v2 = () => new SqlResourceRepository(db as Database, tableOf(FileV2));
      const v4 = () => new SqlResourceRepository(db as Database, tableOf(FileV4));

      before(async function () {
        if (!target.url()) return this.skip();
        db = await connectDatabase(target.url() as string);
        await db.migrate();
        await knex().schema.dropTableIfExists('test_files');
      });
      after(async () => {
        if (db) await knex().schema.dropTableIfExists('test_files');
        await db?.close();
      });

      it('stores a file as JSON text in a column of its own (no index), read back as the stored file', async () => {
        await run(createResourceTable(knex(), V1));
        const json = JSON.stringify({
          key: photo.key,
          size: photo.size,
          content_type: photo.contentType,
          sha256: photo.sha256,
          uploaded_at: photo.uploadedAt.toISOString(),
        });
        await knex()('test_files').insert([
          { id: id(1), title: 'one', photo: json, version: 1, created_at: T0, updated_at: T0 },
          { id: id(2), title: 'two', photo: null, version: 1, created_at: T0, updated_at: T0 },
        ]);
        await run(changeResourceTable(knex(), { before: V1, after: V2 }).statements);
        const one = await v2().findById(id(1));
        expect(one?.photo).to.deep.equal(photo);
        expect(one?.photo?.uploadedAt).to.be.instanceOf(Date);
        expect(one?.scan).to.equal(null);
        expect((await v2().findById(id(2)))?.photo).to.equal(null);
        const indexes = (
          knex().client.dialect === 'postgresql'
            ? (await knex().raw("select indexdef as sql from pg_indexes where tablename = 'test_files'")).rows
            : await knex().raw("select sql from sqlite_master where tbl_name = 'test_files' and type = 'index'")
        ) as { sql: string | null }[];
        expect(indexes.some((index) => /photo|scan/.test(index.sql ?? ''))).to.equal(false);
      });

      it('writes a file through the repository and reads it back; another value replaces it whole', async () => {
        await v2().update(id(2), (row) => row.apply({ scan }, T0));
        expect((await v2().findById(id(2)))?.scan).to.deep.equal(scan);
        await v2().add(FileV2.create({ id: id(3), title: 'three', photo: null, scan: null }, T0));
        await v2().update(id(3), (row) => row.apply({ photo, scan }, T0));
        const three = await v2().findById(id(3));
        expect([three?.photo, three?.scan]).to.deep.equal([photo, scan]);
        await v2().update(id(3), (row) => row.apply({ photo: null }, T0));
        expect((await v2().findById(id(3)))?.photo).to.equal(null);
        const page = await v2().list({ page: 1, perPage: 10, sort: 'title', order: 'asc' });
        expect(page.items.map((row) => row.scan)).to.deep.equal([null, scan, scan]);
      });

      it('drops a file column, and keeps the other file values through a table rebuild', async () => {
        await run(changeResourceTable(knex(), { before: V2, after: V3 }).statements);
        const rebuild = changeResourceTable(knex(), { before: V3, after: V4, defaults: { kind: 'b' } });
        expect(rebuild.rebuild).to.equal(knex().client.dialect !== 'postgresql');
        await run(rebuild.statements);
        const rows = await v4().list({ page: 1, perPage: 10, sort: 'title', order: 'asc' });
        expect(rows.items.map((row) => [row.title, row.scan, row.kind])).to.deep.equal([
          ['one', null, 'b'],
          ['three', scan, 'b'],
          ['two', scan, 'b'],
        ]);
      });
    });
  }
});
