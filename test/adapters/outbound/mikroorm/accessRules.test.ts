import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { Migration } from '@mikro-orm/migrations';
import { expect } from 'chai';
import type { StoredRule } from '../../../../src/adapters/outbound/access/PolicyRuleStore.js';
import { grantResourceAccess } from '../../../../src/adapters/outbound/mikroorm/migrations/accessRules.js';
import { MikroOrmPolicyRuleStore } from '../../../../src/adapters/outbound/mikroorm/MikroOrmPolicyRuleStore.js';
import { SqlDatabaseFixture, sqlTargets } from '../contracts/databases.js';
import { runMigration } from './migrationQueries.js';

/** What a generated migration of a `widget` resource grants. */
class Migration0099Widgets extends Migration {
  override async up(): Promise<void> {
    grantResourceAccess(this, [
      { role: 'moderator', path: '/api/v1/widgets', action: '.*' },
      { role: 'moderator', path: '/api/v1/widgets/{id}', action: '.*' },
      { role: 'user', path: '/api/v1/widgets', action: 'GET' },
      { role: 'user', path: '/api/v1/widgets/{id}', action: 'GET' },
    ]);
  }
}

/** What a generated migration of an owned `parcel` resource grants: `user` reaches only its own rows. */
class Migration0099OwnedParcels extends Migration {
  override async up(): Promise<void> {
    grantResourceAccess(this, [
      { role: 'moderator', path: '/api/v1/parcels/{id}', action: '.*' },
      { role: 'user', path: '/api/v1/parcels/{id}', action: 'GET|PUT|DELETE', scope: 'own' },
    ]);
  }
}

const p = (...values: string[]): StoredRule => ({ kind: 'p', values });
const SEEDED: StoredRule[] = [
  p('admin', '/api/v1/*', '.*'),
  p('user', '/api/v1/products', 'GET'),
  { kind: 'g', values: ['admin', 'moderator'] },
];

describe("grantResourceAccess: a new resource's access rules reach databases that already exist", () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-grants-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'grants.sqlite')) {
    describe(`on ${target.name}`, function () {
      const database = new SqlDatabaseFixture(target);
      const store = () => new MikroOrmPolicyRuleStore(database.db);
      const migrate = () =>
        runMigration(
          database.db.orm,
          Migration0099Widgets,
          (database.db.orm.em.getConnection() as AbstractSqlConnection).getKnex(),
        );

      before(async function () {
        const skipped = await database.open();
        if (skipped !== undefined) {
          console.log(`      (skipped: ${skipped})`);
          this.skip();
        }
      });
      beforeEach(() => database.clear());
      after(() => database.close());

      it('adds the four rules to a database whose policy was seeded before, beside the rules it had', async () => {
        await store().seed(SEEDED);
        await migrate();
        expect(await store().load()).to.deep.equal([
          ...SEEDED,
          p('moderator', '/api/v1/widgets', '.*'),
          p('moderator', '/api/v1/widgets/{id}', '.*'),
          p('user', '/api/v1/widgets', 'GET'),
          p('user', '/api/v1/widgets/{id}', 'GET'),
        ]);
      });

      it('adds a rule of scope own with its scope (the fifth field of its policy line)', async () => {
        await store().seed(SEEDED);
        await runMigration(
          database.db.orm,
          Migration0099OwnedParcels,
          (database.db.orm.em.getConnection() as AbstractSqlConnection).getKnex(),
        );
        expect(await store().load()).to.deep.equal([
          ...SEEDED,
          p('moderator', '/api/v1/parcels/{id}', '.*'),
          p('user', '/api/v1/parcels/{id}', 'GET|PUT|DELETE', 'own'),
        ]);
      });

      it('adds nothing to a fresh database (the service then seeds it from policy/policy.csv)', async () => {
        await database.db.orm.em
          .getConnection()
          .execute(`insert into app_meta (key, value) values ('another_fact', 'x')`);
        await migrate();
        expect(await store().load()).to.equal(undefined);
        const rows = await database.db.orm.em.getConnection().execute('select count(*) as n from access_rules');
        expect(Number((rows[0] as { n: number | string }).n)).to.equal(0);
      });

      it('leaves a rule the role already has for a path alone, adds no duplicate, and adds nothing when run again', async () => {
        await store().seed([p('user', '/api/v1/widgets', 'POST'), p('moderator', '/api/v1/widgets/{id}', '.*')]);
        await migrate();
        await migrate();
        expect(await store().load()).to.deep.equal([
          p('user', '/api/v1/widgets', 'POST'),
          p('moderator', '/api/v1/widgets/{id}', '.*'),
          p('moderator', '/api/v1/widgets', '.*'),
          p('user', '/api/v1/widgets/{id}', 'GET'),
        ]);
      });
    });
  }
});
