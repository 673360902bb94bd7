import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DatabaseHealthCheck } from '../../../../src/adapters/outbound/health/DatabaseHealthCheck.js';
import {
  DatabaseConnectionError,
  databaseTarget,
  type Database,
} from '../../../../src/adapters/outbound/mikroorm/database.js';
import { connectDatabase } from '../../../support/database.js';
import { externalService } from '../../../support/env.js';

/** The same behaviour, whichever engine `database.url` names. */
function databaseContract(name: string, url: () => string | undefined): void {
  describe(`Database on ${name}`, function () {
    let database: Database;

    before(async function () {
      const target = url();
      if (!target) {
        console.log(`      (skipped: ${name} needs SVC_TEST_POSTGRES_URL)`);
        this.skip();
      }
      database = await connectDatabase(target);
    });

    after(async () => {
      await database?.close().catch(() => undefined);
    });

    it('answers a ping and applies migrations idempotently', async () => {
      await database.ping();
      await database.migrate();
      expect(await database.pendingMigrations()).to.deep.equal([]);
      expect(await database.migrate()).to.deep.equal([]);
    });

    it('is reported up by the database health check', async () => {
      expect(await new DatabaseHealthCheck(database).check()).to.deep.equal({ status: 'up' });
    });

    it('is reported down, with no driver detail, once the connection is gone', async () => {
      const other = await connectDatabase(url()!);
      await other.close();
      const outcome = await new DatabaseHealthCheck(other).check();
      expect(outcome).to.deep.equal({ status: 'down', message: 'database unreachable' });
    });
  });
}

describe('database bootstrap', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-db-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  databaseContract('SQLite in memory', () => 'sqlite::memory:');
  databaseContract('SQLite file', () => `sqlite:${join(dir, 'nested', 'portico.sqlite')}`);
  databaseContract('PostgreSQL', () => externalService('SVC_TEST_POSTGRES_URL'));

  it('opens SQLite files with foreign keys on, write-ahead logging and synchronous NORMAL', async () => {
    const db = await connectDatabase(`sqlite:${join(dir, 'pragmas.sqlite')}`);
    try {
      const connection = db.orm.em.getConnection();
      expect(await connection.execute('pragma foreign_keys', [], 'get')).to.deep.equal({ foreign_keys: 1 });
      expect(await connection.execute('pragma journal_mode', [], 'get')).to.deep.equal({ journal_mode: 'wal' });
      expect(await connection.execute('pragma synchronous', [], 'get')).to.deep.equal({ synchronous: 1 });
    } finally {
      await db.close();
    }
  });

  it('creates the SQLite file and its folder', async () => {
    const file = join(dir, 'made', 'here.sqlite');
    const db = await connectDatabase(`sqlite:${file}`);
    await db.close();
    expect(existsSync(file)).to.equal(true);
  });

  it('refuses an unreachable PostgreSQL with a one-line message that hides the password', async () => {
    try {
      await connectDatabase('postgres://portico:s3cret-pw@127.0.0.1:1/portico');
      expect.fail('connect should have failed');
    } catch (error) {
      expect(error).to.be.instanceOf(DatabaseConnectionError);
      const message = (error as Error).message;
      expect(message).to.match(/^cannot connect to postgresql 127\.0\.0\.1:1\/portico: /);
      expect(message).not.to.include('s3cret-pw');
      expect(message).not.to.include('\n');
    }
  });

  it('describes targets without their password', () => {
    expect(databaseTarget('sqlite::memory:').display).to.equal('sqlite (in memory)');
    expect(databaseTarget('sqlite:data/portico.sqlite').display).to.equal('sqlite data/portico.sqlite');
    expect(databaseTarget('postgres://u:pw@db.local:5432/app').display).to.equal('postgresql db.local:5432/app');
  });
});
