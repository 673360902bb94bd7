import { expect } from 'chai';
import pg from 'pg';
import { discoverMigrations } from '../../../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { connectDatabase } from '../../../support/database.js';
import { externalService } from '../../../support/env.js';

const postgresUrl = externalService('SVC_TEST_POSTGRES_URL');

/** A fresh, empty database next to the test database, and a way to drop it. */
async function freshDatabase(admin: pg.Client, name: string): Promise<string> {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const url = new URL(postgresUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

describe('migrations on PostgreSQL take a lock: instances started together on a fresh database all come up', function () {
  this.timeout(120_000);
  let admin: pg.Client;

  before(async function () {
    if (!postgresUrl) {
      console.log('      (skipped: SVC_TEST_POSTGRES_URL is not set)');
      this.skip();
    }
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
  });

  it('three at once, ten times: every one migrates without error, and each migration is applied once', async () => {
    const all = (await discoverMigrations()).map((m) => m.name);
    for (let trial = 0; trial < 10; trial += 1) {
      const name = `portico_lock_${process.pid}_${trial}`;
      const url = await freshDatabase(admin, name);
      try {
        const instances = await Promise.all([0, 1, 2].map(() => connectDatabase(url)));
        try {
          const applied = await Promise.all(instances.map((db) => db.migrate()));
          // One instance applied everything; the others waited and found nothing left.
          expect(applied.flat().sort(), `trial ${trial}`).to.deep.equal([...all].sort());
          for (const db of instances) expect(await db.pendingMigrations()).to.deep.equal([]);
          const rows = (await instances[0]!.orm.em
            .getConnection()
            .execute('select name from mikro_orm_migrations', [], 'all')) as { name: string }[];
          expect(rows.map((r) => r.name).sort()).to.deep.equal([...all].sort());
        } finally {
          await Promise.all(instances.map((db) => db.close()));
        }
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
      }
    }
  });

  it('the lock is released when a migration fails, so the next instance can migrate', async () => {
    const name = `portico_lock_${process.pid}_failing`;
    const url = await freshDatabase(admin, name);
    try {
      const blocker = new pg.Client({ connectionString: url });
      await blocker.connect();
      // A table in the way of the first migration makes it fail.
      await blocker.query('create table users (id int)');
      const first = await connectDatabase(url);
      try {
        expect(
          await first.migrate().then(
            () => 'migrated',
            () => 'failed',
          ),
        ).to.equal('failed');
      } finally {
        await first.close();
      }
      await blocker.query('drop table users');
      await blocker.end();
      const second = await connectDatabase(url);
      try {
        const applied = await Promise.race([
          second.migrate(),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('waited on a lock never released')), 10_000),
          ),
        ]);
        expect(applied).to.have.length((await discoverMigrations()).length);
      } finally {
        await second.close();
      }
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
    }
  });
});
