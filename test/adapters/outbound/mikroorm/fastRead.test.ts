import { expect } from 'chai';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { readAll, readOne, statementName, writeOne } from '../../../../src/adapters/outbound/mikroorm/fastRead.js';
import { externalService } from '../../../support/env.js';
import { SqlDatabaseFixture } from '../contracts/databases.js';

interface SentQuery {
  name?: string;
  text: string;
  values?: unknown[];
}

/**
 * The hot reads on PostgreSQL (every GET by id, every list page) go out as named prepared
 * statements with their values sent apart: the server parses and plans each statement once per
 * connection, and no value is ever part of the SQL text.
 */
describe('fastRead on PostgreSQL', function () {
  this.timeout(30_000);
  const url = externalService('SVC_TEST_POSTGRES_URL');
  const database = new SqlDatabaseFixture({ name: 'PostgreSQL', url: () => url, persistent: true });
  const sent: SentQuery[] = [];

  before(async function () {
    if (!url) return this.skip();
    await database.open();
    const client = (database.db.orm.em.getConnection() as AbstractSqlConnection).getKnex().client as {
      acquireConnection(): Promise<{ query(...args: unknown[]): unknown }>;
    };
    const acquire = client.acquireConnection.bind(client);
    client.acquireConnection = async () => {
      const connection = await acquire();
      if (!(connection as { watched?: boolean }).watched) {
        const query = connection.query.bind(connection);
        connection.query = (...args: unknown[]) => {
          if (typeof args[0] === 'object' && args[0] !== null) sent.push(args[0] as SentQuery);
          return query(...args);
        };
        (connection as { watched?: boolean }).watched = true;
      }
      return connection;
    };
  });
  after(() => database.close());

  it('sends the values apart from the text, under one name per statement, and answers the rows', async () => {
    await database.clear();
    const connection = database.db.orm.em.getConnection();
    await connection.execute("insert into app_meta (key, value) values ('fast-a', 'one'), ('fast-b', 'two')");
    sent.length = 0;
    const sql = 'select key, value from app_meta where key = ?';
    expect(await readOne(database.db.orm, sql, ['fast-a'])).to.deep.equal({ key: 'fast-a', value: 'one' });
    expect(await readOne(database.db.orm, sql, ['fast-b'])).to.deep.equal({ key: 'fast-b', value: 'two' });
    expect(await readOne(database.db.orm, sql, ["' or 1=1 --"])).to.equal(undefined);
    const listed = await readAll(database.db.orm, 'select key from app_meta where key in (?, ?) order by key', [
      'fast-b',
      'fast-a',
    ]);
    expect(listed).to.deep.equal([{ key: 'fast-a' }, { key: 'fast-b' }]);

    const reads = sent.filter((q) => q.text.includes('app_meta'));
    expect(reads).to.have.length(4);
    for (const query of reads) {
      expect(query.text).not.to.match(/fast-|or 1=1/);
      expect(query.name).to.match(/^portico_[0-9a-f]{40}$/);
    }
    expect(reads[0]!.text).to.equal('select key, value from app_meta where key = $1');
    expect(reads[0]!.values).to.deep.equal(['fast-a']);
    expect(new Set(reads.slice(0, 3).map((q) => q.name)).size, 'one name for one statement').to.equal(1);
    expect(reads[3]!.name).not.to.equal(reads[0]!.name);
    // The name is the text's: every instance names one query alike, and no two queries alike.
    expect(reads[0]!.name).to.equal(statementName(reads[0]!.text));
  });

  it("writes the same way: an insert goes out named, its values apart, and a broken constraint is the driver's error", async () => {
    await database.clear();
    sent.length = 0;
    const sql = 'insert into app_meta (key, value) values (?, ?)';
    await writeOne(database.db.orm, sql, ['fast-w', "it's"]);
    expect(await readOne(database.db.orm, 'select value from app_meta where key = ?', ['fast-w'])).to.deep.equal({
      value: "it's",
    });
    const error = await writeOne(database.db.orm, sql, ['fast-w', 'again']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.have.property('code', '23505');
    const writes = sent.filter((q) => q.text.startsWith('insert into app_meta'));
    expect(writes).to.have.length(2);
    expect(writes[0]!.text).to.equal('insert into app_meta (key, value) values ($1, $2)');
    expect(writes[0]!.name).to.match(/^portico_[0-9a-f]{40}$/);
    expect(writes[1]!.name).to.equal(writes[0]!.name);
  });

  it('with database.prepared_statements false, sends every statement unnamed (nothing depends on a server session)', async () => {
    const unnamed = new SqlDatabaseFixture({ name: 'PostgreSQL', url: () => url, persistent: true });
    await unnamed.open({ preparedStatements: false });
    try {
      const client = (unnamed.db.orm.em.getConnection() as AbstractSqlConnection).getKnex().client as {
        acquireConnection(): Promise<{ query(...args: unknown[]): unknown }>;
      };
      const seen: SentQuery[] = [];
      const acquire = client.acquireConnection.bind(client);
      client.acquireConnection = async () => {
        const connection = await acquire();
        const query = connection.query.bind(connection);
        connection.query = (...args: unknown[]) => {
          if (typeof args[0] === 'object' && args[0] !== null) seen.push(args[0] as SentQuery);
          return query(...args);
        };
        return connection;
      };
      expect(await readOne(unnamed.db.orm, 'select ? as answer', [42])).to.deep.equal({ answer: '42' });
      await writeOne(unnamed.db.orm, 'insert into app_meta (key, value) values (?, ?) on conflict do nothing', [
        'fast-unnamed',
        'x',
      ]);
      expect(seen.length).to.be.greaterThan(1);
      for (const query of seen) expect(query.name, query.text).to.equal(undefined);
    } finally {
      await unnamed.close();
    }
  });
});
