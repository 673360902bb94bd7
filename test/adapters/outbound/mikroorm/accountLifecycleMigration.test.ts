import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import { SqlCallerLookup } from '../../../../src/adapters/outbound/mikroorm/SqlCallerLookup.js';
import { MikroOrmEmailTokenStore } from '../../../../src/adapters/outbound/mikroorm/MikroOrmEmailTokenStore.js';
import { MikroOrmRefreshTokenStore } from '../../../../src/adapters/outbound/mikroorm/MikroOrmRefreshTokenStore.js';
import { MikroOrmSessionStore } from '../../../../src/adapters/outbound/mikroorm/MikroOrmSessionStore.js';
import { MikroOrmUserRepository } from '../../../../src/adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { SqlDatabaseFixture, sqlTargets } from '../contracts/databases.js';

const ALL = [
  'Migration0001Users',
  'Migration20261127T1224AccessRulesScope',
  'Migration0003AccountLifecycle',
  'Migration0004AccountMailLimits',
  'Migration0005Jobs',
  'Migration0002Products',
];
const uuid = (prefix: string, n: number): string => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ADA = uuid('aaaaaaaa', 1);
const BOB = uuid('bbbbbbbb', 2);
const LIVE = uuid('f1f1f1f1', 1);
const REVOKED = uuid('f2f2f2f2', 2);
const BOBS = uuid('f3f3f3f3', 3);
const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

/** The tables of the database (its current schema on PostgreSQL). */
async function tables(db: Database): Promise<string[]> {
  const sql =
    db.sql.dialect === 'postgresql'
      ? 'select table_name as name from information_schema.tables where table_schema = current_schema()'
      : "select name from sqlite_master where type = 'table'";
  return ((await db.orm.em.getConnection().execute(sql, [], 'all')) as { name: string }[]).map((row) => row.name);
}

/**
 * Migration0003AccountLifecycle on every engine: a fresh database gets all three migrations; one
 * at 0001+0002 (users with refresh tokens, from before sessions existed) gets 0003 alone, and
 * its refresh-token families become sessions; `down` undoes it.
 */
describe('Migration0003AccountLifecycle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-lifecycle-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'lifecycle.sqlite')) {
    describe(`on ${target.name}`, function () {
      const database = new SqlDatabaseFixture(target);
      const db = (): Database => database.db;
      const execute = (sql: string, params: unknown[] = []) => db().orm.em.getConnection().execute(sql, params, 'run');
      /** A time as the ORM stores it: epoch milliseconds on SQLite. */
      const stamp = (date: Date) => (db().sql.dialect === 'postgresql' ? date.toISOString() : date.getTime());

      before(async function () {
        const skipped = await database.open();
        if (skipped) {
          console.log(`      (skipped: ${skipped})`);
          this.skip();
        }
      });
      after(() => database.close());

      it('takes a database from nothing through the shipped migrations, in module order', async () => {
        await db().orm.getMigrator().down({ to: 0 });
        expect(await tables(db())).not.to.include.members(['users']);
        // These first, in module order; any generated later (a resource, a field) follow.
        expect((await db().migrate()).slice(0, ALL.length)).to.deep.equal(ALL);
        expect(await tables(db())).to.include.members([
          'users',
          'refresh_tokens',
          'sessions',
          'email_tokens',
          'products',
        ]);
        expect(await db().pendingMigrations()).to.deep.equal([]);
      });

      it('undoes itself with down: no sessions, no e-mail tokens, no email_verified', async () => {
        await db().orm.getMigrator().down(['Migration0004AccountMailLimits', 'Migration0003AccountLifecycle']);
        expect(await tables(db())).not.to.include.members(['sessions']);
        expect(await tables(db())).not.to.include.members(['email_tokens']);
        await execute('delete from refresh_tokens');
        await execute('delete from users');
        // The users row as it was before: no email_verified column to name.
        await execute(
          'insert into users (id, email, first_name, last_name, role, password_hash, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
          [ADA, 'ada@example.com', 'Ada', 'L', 'user', 'h', stamp(T0), stamp(T0)],
        );
        const error = await execute('select email_verified from users').then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(Error);
        expect(await db().pendingMigrations()).to.deep.equal([
          'Migration0003AccountLifecycle',
          'Migration0004AccountMailLimits',
        ]);
        await db().migrate();
      });

      it('upgrades a database at 0001+0002: only 0003 runs, users unverified, each refresh family a session', async () => {
        await db().orm.getMigrator().down(['Migration0004AccountMailLimits', 'Migration0003AccountLifecycle']);
        await execute('delete from refresh_tokens');
        await execute('delete from users');
        for (const [id, email] of [
          [ADA, 'ada@example.com'],
          [BOB, 'bob@example.com'],
        ] as const) {
          await execute(
            'insert into users (id, email, first_name, last_name, role, password_hash, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
            [id, email, 'Name', 'Surname', 'user', 'h', stamp(T0), stamp(T0)],
          );
        }
        const tokens: [string, string, string, Date, Date | null, Date | null][] = [
          // Ada's live family: one spent token, one current; the session expires with the newest.
          [uuid('70e70e70', 1), LIVE, ADA, at(3600), at(10), null],
          [uuid('70e70e70', 2), LIVE, ADA, at(7200), null, null],
          // Ada's family ended by logout: every token revoked.
          [uuid('70e70e70', 3), REVOKED, ADA, at(3600), at(10), at(20)],
          [uuid('70e70e70', 4), REVOKED, ADA, at(3700), null, at(20)],
          [uuid('70e70e70', 5), BOBS, BOB, at(5000), null, null],
        ];
        for (const [id, family, user, expires, consumed, revoked] of tokens) {
          await execute(
            'insert into refresh_tokens (id, family_id, user_id, expires_at, consumed_at, revoked_at) values (?, ?, ?, ?, ?, ?)',
            [id, family, user, stamp(expires), consumed ? stamp(consumed) : null, revoked ? stamp(revoked) : null],
          );
        }

        const before = Date.now();
        expect(await db().migrate()).to.deep.equal(['Migration0003AccountLifecycle', 'Migration0004AccountMailLimits']);
        const after = Date.now();

        const users = new MikroOrmUserRepository(db());
        expect((await users.findById(ADA))?.emailVerified).to.equal(false);
        expect((await users.findByEmail('bob@example.com'))?.emailVerified).to.equal(false);

        const sessions = new MikroOrmSessionStore(db());
        const adas = await sessions.listActive(ADA, at(60));
        expect(adas.map((s) => s.id)).to.deep.equal([LIVE]);
        const [live] = adas;
        expect(live!.userId).to.equal(ADA);
        expect(live!.expiresAt.getTime()).to.equal(at(7200).getTime());
        expect(live!.createdAt.getTime()).to.be.within(before, after);
        expect(live!.lastUsedAt.getTime()).to.equal(live!.createdAt.getTime());
        expect(live!.userAgent).to.equal(null);
        expect(live!.ip).to.equal(null);
        expect(await sessions.isActive(ADA, REVOKED, at(60))).to.equal(false);
        expect(await sessions.end(ADA, REVOKED, at(60))).to.equal(false);
        expect((await sessions.listActive(BOB, at(60))).map((s) => s.id)).to.deep.equal([BOBS]);

        // The families' tokens keep working as before, and their access tokens find their caller.
        const lookup = new SqlCallerLookup(db());
        expect((await lookup.find(ADA, LIVE, at(60)))?.email).to.equal('ada@example.com');
        expect(await lookup.find(ADA, REVOKED, at(60))).to.equal(undefined);
        expect((await new MikroOrmRefreshTokenStore(db()).consume(uuid('70e70e70', 2), at(60))).outcome).to.equal(
          'consumed',
        );

        // The new tables work, and go with their user.
        await sessions.touch(LIVE, at(100), at(9000));
        expect(await sessions.endAll(ADA, at(120))).to.deep.equal([LIVE]);
        const emailTokens = new MikroOrmEmailTokenStore(db());
        const record = {
          selector: 'a'.repeat(32),
          verifierHash: 'b'.repeat(64),
          userId: BOB,
          purpose: 'email-verification' as const,
          email: 'bob@example.com',
          createdAt: at(1),
          expiresAt: at(86400),
        };
        expect(await emailTokens.addWithinLimit(record, { since: at(-3600), perAddress: 3, perIp: 20 })).to.equal(true);
        await users.delete(BOB);
        expect(await emailTokens.find(record.selector)).to.equal(undefined);
        expect(await sessions.listActive(BOB, at(60))).to.deep.equal([]);
      });
    });
  }
});
