import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import { MikroOrmUserRepository } from '../../../../src/adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { SqlDatabaseFixture, sqlTargets } from '../contracts/databases.js';

const PASSKEYS = 'Migration20261127T1802Passkeys';
const ADA = 'aaaaaaaa-0000-4000-8000-000000000001';
const T0 = new Date('2026-01-01T00:00:00.000Z');

/** The columns of `table` (its current schema on PostgreSQL). */
async function columns(db: Database, table: string): Promise<string[]> {
  const sql =
    db.sql.dialect === 'postgresql'
      ? `select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = '${table}'`
      : `select name from pragma_table_info('${table}')`;
  return ((await db.orm.em.getConnection().execute(sql, [], 'all')) as { name: string }[]).map((row) => row.name);
}

/** The passkeys migration on every engine: users made before it keep their rows, without a passkey; `down` undoes it. */
describe('Migration20261127T1802Passkeys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-passkeys-migration-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'passkeys-migration.sqlite')) {
    describe(`on ${target.name}`, function () {
      const database = new SqlDatabaseFixture(target);
      const db = (): Database => database.db;

      before(async function () {
        const skipped = await database.open();
        if (skipped) {
          console.log(`      (skipped: ${skipped})`);
          this.skip();
        }
      });
      after(async () => {
        await db().migrate();
        await database.close();
      });

      it('keeps the users of a database from before it (no passkey), and undoes itself with down', async () => {
        await database.clear();
        await db().orm.getMigrator().down(PASSKEYS);
        expect(await columns(db(), 'users')).to.not.include('has_passkey');
        expect(await columns(db(), 'passkeys')).to.deep.equal([]);
        await db()
          .orm.em.getConnection()
          .execute(
            'insert into users (id, email, first_name, last_name, role, password_hash, email_verified, mfa_enabled, created_at, updated_at) ' +
              'values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            [
              ADA,
              'ada@example.com',
              'Ada',
              'Lovelace',
              'admin',
              'hash',
              true,
              false,
              db().sql.dialect === 'postgresql' ? T0.toISOString() : T0.getTime(),
              db().sql.dialect === 'postgresql' ? T0.toISOString() : T0.getTime(),
            ],
            'run',
          );

        expect(await db().migrate()).to.include(PASSKEYS);
        const ada = await new MikroOrmUserRepository(db()).findById(ADA);
        expect(ada?.toProps()).to.include({ email: 'ada@example.com', role: 'admin', hasPasskey: false });
        expect(await columns(db(), 'passkeys')).to.include.members(['credential_id', 'public_key', 'counter']);
        expect(await columns(db(), 'passkey_challenges')).to.include.members(['selector', 'verifier_hash', 'purpose']);

        await db().orm.getMigrator().down(PASSKEYS);
        expect(await columns(db(), 'users')).to.not.include('has_passkey');
        expect(await columns(db(), 'passkey_challenges')).to.deep.equal([]);
        expect(await db().migrate()).to.deep.equal([PASSKEYS]);
        expect((await new MikroOrmUserRepository(db()).findById(ADA))?.hasPasskey).to.equal(false);
      });
    });
  }
});
