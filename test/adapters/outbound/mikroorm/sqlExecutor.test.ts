import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { statementName } from '../../../../src/adapters/outbound/mikroorm/sqlExecutor.js';
import { externalService, pooledPostgres } from '../../../support/env.js';
import { SqlDatabaseFixture, sqlTargets } from '../contracts/databases.js';

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** The executor's contract, on every engine: what the repositories rely on. */
describe('SqlExecutor', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-executor-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'executor.sqlite')) {
    describe(`on ${target.name}`, function () {
      this.timeout(30_000);
      const database = new SqlDatabaseFixture(target);
      before(async function () {
        const skipped = await database.open();
        if (skipped) {
          console.log(`      (skipped: ${skipped})`);
          this.skip();
        }
      });
      beforeEach(() => database.clear());
      after(() => database.close());

      it('answers one row, every row, and how many rows a write changed; values never join the text', async () => {
        const sql = database.db.sql;
        expect(
          await sql.run('insert into app_meta (key, value) values (?, ?), (?, ?)', ['a', 'one', 'b', "it's"]),
        ).to.equal(2);
        expect(await sql.one('select value from app_meta where key = ?', ['b'])).to.include({ value: "it's" });
        expect(await sql.one('select value from app_meta where key = ?', ["' or 1=1 --"])).to.equal(undefined);
        const keys = await sql.all<{ key: string }>('select key from app_meta where key in (?, ?) order by key', [
          'b',
          'a',
        ]);
        expect(keys.map((row) => row.key)).to.deep.equal(['a', 'b']);
        expect(await sql.run('update app_meta set value = ? where key = ?', ['two', 'nobody'])).to.equal(0);
      });

      it('binds dates and booleans as the ORM stores them, so a row written either way reads back alike', async () => {
        const sql = database.db.sql;
        const at = new Date('2026-03-04T05:06:07.089Z');
        const answer = await sql.one<{ same: unknown }>('select ? = ? as same', [true, true]);
        expect(Number(answer?.same) === 1 || answer?.same === true).to.equal(true);
        await sql.run('insert into app_meta (key, value) values (?, ?)', ['when', String(at.getTime())]);
        const stamp = sql.dialect === 'postgresql' ? at.toISOString() : at.getTime();
        const found = await sql.one<{ n: number | string }>(
          sql.dialect === 'postgresql'
            ? 'select count(*) as n from app_meta where cast(? as timestamptz) = cast(? as timestamptz)'
            : 'select count(*) as n from app_meta where ? = ?',
          [at, stamp],
        );
        expect(Number(found?.n)).to.equal(1);
      });

      it('commits a transaction that resolves and rolls back one that rejects, with the work’s own error', async () => {
        const sql = database.db.sql;
        await sql.transaction((tx) => tx.run('insert into app_meta (key, value) values (?, ?)', ['kept', 'x']));
        const failure = new Error('changed my mind');
        const error = await rejection(
          sql.transaction(async (tx) => {
            await tx.run('insert into app_meta (key, value) values (?, ?)', ['dropped', 'x']);
            throw failure;
          }),
        );
        expect(error).to.equal(failure);
        const keys = await sql.all<{ key: string }>('select key from app_meta order by key');
        expect(keys.map((row) => row.key)).to.deep.equal(['kept']);
      });

      it('a read outside an open transaction never sees what it has not committed, nor what it rolled back', async () => {
        const sql = database.db.sql;
        const read = () => sql.one<{ value: string }>('select value from app_meta where key = ?', ['pending']);
        let inside!: () => void;
        const written = new Promise<void>((resolve) => (inside = resolve));
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const rolledBack = rejection(
          sql.transaction(async (tx) => {
            await tx.run('insert into app_meta (key, value) values (?, ?)', ['pending', 'uncommitted']);
            inside();
            await held;
            throw new Error('rolled back');
          }),
        );
        await written;
        // Asked while the transaction holds its write: answered after it ends, with no row.
        const during = read();
        await new Promise((resolve) => setTimeout(resolve, 20));
        release();
        expect(await during).to.equal(undefined);
        expect(await rolledBack).to.be.instanceOf(Error);
        expect(await read()).to.equal(undefined);
      });

      it("rejects a broken constraint with the driver's own code, and stays usable", async () => {
        const sql = database.db.sql;
        await sql.run('insert into app_meta (key, value) values (?, ?)', ['k', 'x']);
        const error = await rejection(sql.run('insert into app_meta (key, value) values (?, ?)', ['k', 'y']));
        expect(error)
          .to.have.property('code')
          .that.matches(/^(23505|SQLITE_CONSTRAINT_PRIMARYKEY)$/);
        expect(await sql.one('select value from app_meta where key = ?', ['k'])).to.include({ value: 'x' });
      });
    });
  }
});

/**
 * On PostgreSQL the statements go out as named prepared statements (the server parses and plans
 * each once per connection), named by their text's digest; with `database.prepared_statements`
 * false nothing is left on the server session. Seen from the server: `pg_prepared_statements` of
 * the session the transaction runs on.
 */
describe('SqlExecutor on PostgreSQL: named statements', function () {
  this.timeout(30_000);
  const url = externalService('SVC_TEST_POSTGRES_URL');
  const fixture = (): SqlDatabaseFixture =>
    new SqlDatabaseFixture({ name: 'PostgreSQL', url: () => url, persistent: true });

  before(function () {
    if (!url) this.skip();
  });

  const preparedOnSession = async (database: SqlDatabaseFixture, sql: string, params: string[]) =>
    database.db.sql.transaction(async (tx) => {
      await tx.one(sql, params);
      return tx.all<{ name: string; statement: string }>(
        "select name, statement from pg_prepared_statements where name like 'portico%' and statement like 'select key, value from app_meta%'",
      );
    });

  it('prepares each text once, under the digest of its text, with the values apart', async function () {
    // Through a transaction pooler the suites run with prepared statements off (npm run test:pgbouncer).
    if (pooledPostgres(url!)) return this.skip();
    const database = fixture();
    await database.open();
    try {
      const sql = 'select key, value from app_meta where key = ?';
      const prepared = await preparedOnSession(database, sql, ['secret-value']);
      const text = 'select key, value from app_meta where key = $1';
      expect(prepared).to.deep.equal([{ name: statementName(text), statement: text }]);
      expect(statementName(text)).to.match(/^portico_[0-9a-f]{40}$/);
      expect(statementName(text)).not.to.equal(statementName('select key from app_meta where key = $1'));
    } finally {
      await database.close();
    }
  });

  it('with database.prepared_statements false, prepares nothing on the server session', async () => {
    const database = fixture();
    await database.open({ preparedStatements: false });
    try {
      expect(await preparedOnSession(database, 'select key, value from app_meta where key = ?', ['x'])).to.deep.equal(
        [],
      );
      expect(await database.db.sql.one('select ? as answer', ['42'])).to.include({ answer: '42' });
    } finally {
      await database.close();
    }
  });
});
