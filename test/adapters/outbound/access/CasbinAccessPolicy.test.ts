import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { SEED_INHERITANCE, SEED_POLICIES } from '../../../support/seedPolicy.js';
import { CasbinAccessPolicy } from '../../../../src/adapters/outbound/access/CasbinAccessPolicy.js';
import { parsePolicyCsv, type StoredRule } from '../../../../src/adapters/outbound/access/PolicyRuleStore.js';
import { InMemoryPolicyRuleStore } from '../../../../src/adapters/outbound/memory/InMemoryPolicyRuleStore.js';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import { connectDatabase } from '../../../support/database.js';
import { MikroOrmPolicyRuleStore } from '../../../../src/adapters/outbound/mikroorm/MikroOrmPolicyRuleStore.js';
import type { PolicyRule } from '../../../../src/application/ports/AccessPolicy.js';

const MODEL = readFileSync(new URL('../../../../policy/model.conf', import.meta.url), 'utf8');
const SHIPPED_RULES: readonly StoredRule[] = parsePolicyCsv(
  readFileSync(new URL('../../../../policy/policy.csv', import.meta.url), 'utf8'),
);

const shippedPolicy = (): Promise<CasbinAccessPolicy> =>
  CasbinAccessPolicy.create(MODEL, new InMemoryPolicyRuleStore(), SHIPPED_RULES);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

/** docs/access-rules.md: which methods each role may use on each path with the shipped rules. */
const EXPECTED: Record<string, Record<string, readonly Method[]>> = {
  admin: {
    '/api/v1/products': METHODS,
    '/api/v1/products/7d0c5f1e-0000-4000-8000-000000000001': METHODS,
    '/api/v1/products/search': METHODS,
    '/api/v1/profile': METHODS,
    '/api/v1/admin/users': METHODS,
    '/api/v1/admin/users/42': METHODS,
    '/api/v1/admin/policies': METHODS,
    '/api/v1/auth/logout': METHODS,
    '/api/v2/products': [],
    '/health': [],
  },
  moderator: {
    '/api/v1/products': METHODS,
    '/api/v1/products/7d0c5f1e-0000-4000-8000-000000000001': METHODS,
    '/api/v1/products/search': METHODS,
    '/api/v1/profile': ['GET', 'PUT'],
    '/api/v1/admin/users': [],
    '/api/v1/admin/users/42': [],
    '/api/v1/admin/policies': [],
    '/api/v1/auth/logout': [],
    '/api/v2/products': [],
    '/health': [],
  },
  user: {
    '/api/v1/products': ['GET'],
    '/api/v1/products/7d0c5f1e-0000-4000-8000-000000000001': ['GET'],
    '/api/v1/products/search': ['GET'],
    '/api/v1/profile': ['GET', 'PUT'],
    '/api/v1/admin/users': [],
    '/api/v1/admin/users/42': [],
    '/api/v1/admin/policies': [],
    '/api/v1/auth/logout': [],
    '/api/v2/products': [],
    '/health': [],
  },
  guest: {
    '/api/v1/products': [],
    '/api/v1/products/7d0c5f1e-0000-4000-8000-000000000001': [],
    '/api/v1/products/search': [],
    '/api/v1/profile': [],
    '/api/v1/admin/users': [],
    '/api/v1/admin/users/42': [],
    '/api/v1/admin/policies': [],
    '/api/v1/auth/logout': [],
    '/api/v2/products': [],
    '/health': [],
  },
};

const USER_POST_PRODUCTS: PolicyRule = { role: 'user', path: '/api/v1/products', action: 'POST', scope: 'all' };
const USER_GET_PRODUCT: PolicyRule = { role: 'user', path: '/api/v1/products/{id}', action: 'GET', scope: 'all' };

describe('CasbinAccessPolicy', () => {
  describe('the shipped model and policy (docs/access-rules.md)', () => {
    let policy: CasbinAccessPolicy;
    before(async () => {
      policy = await shippedPolicy();
    });

    for (const [role, paths] of Object.entries(EXPECTED)) {
      for (const [path, allowed] of Object.entries(paths)) {
        for (const method of METHODS) {
          const verdict = allowed.includes(method);
          it(`${verdict ? 'allows' : 'denies'} ${role} ${method} ${path}`, async () => {
            expect(await policy.enforce(role, path, method)).to.equal(verdict);
          });
        }
      }
    }

    it('matches actions as whole regular expressions, case-sensitively', async () => {
      for (const action of ['GETX', 'XGET', 'get', 'Get', 'GET ', ' GET', 'GET|POST', 'GETPUT', '.*', '']) {
        expect(await policy.enforce('user', '/api/v1/products', action), `user ${JSON.stringify(action)}`).to.equal(
          false,
        );
      }
      for (const action of ['PUTX', 'GET|PUT', 'PATCH']) {
        expect(
          await policy.enforce('user', '/api/v1/profile', action),
          `user ${JSON.stringify(action)} on profile`,
        ).to.equal(false);
      }
      expect(await policy.enforce('moderator', '/api/v1/admin/users', 'GETX')).to.equal(false);
    });

    it('matches {id} against exactly one path segment', async () => {
      expect(await policy.enforce('user', '/api/v1/products/1', 'GET')).to.equal(true);
      expect(await policy.enforce('user', '/api/v1/products/1/2', 'GET')).to.equal(false);
      expect(await policy.enforce('user', '/api/v1/products/', 'GET')).to.equal(false);
      expect(await policy.enforce('user', '/api/v1/products//', 'GET')).to.equal(false);
      expect(await policy.enforce('moderator', '/api/v1/products/1/2', 'DELETE')).to.equal(false);
    });

    it('matches whole paths only', async () => {
      expect(await policy.enforce('user', '/api/v1/productsX', 'GET')).to.equal(false);
      expect(await policy.enforce('user', '/x/api/v1/products', 'GET')).to.equal(false);
      expect(await policy.enforce('user', '/api/v1/profile/other', 'GET')).to.equal(false);
      expect(await policy.enforce('user', '/API/V1/PRODUCTS', 'GET')).to.equal(false);
    });

    it('lists the shipped rules and the inheritance', async () => {
      expect(await policy.list()).to.deep.equal({
        policies: SEED_POLICIES,
        inheritance: SEED_INHERITANCE,
      });
    });

    it('names the roles admin, moderator and user', async () => {
      expect(await policy.roles()).to.deep.equal(['admin', 'moderator', 'user']);
    });
  });

  describe('changes at runtime', () => {
    let policy: CasbinAccessPolicy;
    beforeEach(async () => {
      policy = await shippedPolicy();
    });

    it('applies an added rule at once, past a cached decision', async () => {
      expect(await policy.enforce('user', '/api/v1/products', 'POST')).to.equal(false);
      expect(await policy.add(USER_POST_PRODUCTS)).to.equal(true);
      expect(await policy.enforce('user', '/api/v1/products', 'POST')).to.equal(true);
      expect((await policy.list()).policies).to.deep.include(USER_POST_PRODUCTS);
    });

    it('applies a removed rule at once, past a cached decision, to the role and its heirs', async () => {
      expect(await policy.enforce('user', '/api/v1/products/1', 'GET')).to.equal(true);
      expect(await policy.remove(USER_GET_PRODUCT)).to.equal(true);
      expect(await policy.enforce('user', '/api/v1/products/1', 'GET')).to.equal(false);
      // moderator still has its own rule for the path.
      expect(await policy.enforce('moderator', '/api/v1/products/1', 'GET')).to.equal(true);
      expect((await policy.list()).policies).not.to.deep.include(USER_GET_PRODUCT);
    });

    it('answers false for a rule already there, and for removing one that is not', async () => {
      expect(await policy.add(USER_GET_PRODUCT)).to.equal(false);
      expect(await policy.remove(USER_POST_PRODUCTS)).to.equal(false);
      expect(await policy.add(USER_POST_PRODUCTS)).to.equal(true);
      expect(await policy.add(USER_POST_PRODUCTS)).to.equal(false);
      expect(await policy.remove(USER_POST_PRODUCTS)).to.equal(true);
      expect(await policy.remove(USER_POST_PRODUCTS)).to.equal(false);
    });

    it('names a role that appears only in an added rule', async () => {
      await policy.add({ role: 'auditor', path: '/api/v1/admin/users', action: 'GET' });
      expect(await policy.roles()).to.deep.equal(['admin', 'auditor', 'moderator', 'user']);
      expect(await policy.enforce('auditor', '/api/v1/admin/users', 'GET')).to.equal(true);
      expect(await policy.enforce('auditor', '/api/v1/admin/users', 'DELETE')).to.equal(false);
    });

    it('tells its subscriber about every change, and not about no-ops', async () => {
      let calls = 0;
      policy.subscribe(() => {
        calls += 1;
      });
      await policy.add(USER_POST_PRODUCTS);
      expect(calls).to.equal(1);
      await policy.remove(USER_POST_PRODUCTS);
      expect(calls).to.equal(2);
      await policy.add(USER_GET_PRODUCT);
      await policy.remove(USER_POST_PRODUCTS);
      expect(calls).to.equal(2);
    });
  });

  describe('rules kept in the database (MikroOrmPolicyRuleStore on a SQLite file)', () => {
    let dir: string;
    let url: string;
    const open: Database[] = [];

    const connect = async (): Promise<Database> => {
      const db = await connectDatabase(url);
      await db.migrate();
      open.push(db);
      return db;
    };
    const start = async (db: Database): Promise<CasbinAccessPolicy> =>
      CasbinAccessPolicy.create(MODEL, new MikroOrmPolicyRuleStore(db), SHIPPED_RULES);

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'portico-casbin-'));
      url = `sqlite:${join(dir, 'policy.sqlite')}`;
    });

    afterEach(async () => {
      for (const db of open.splice(0)) await db.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });

    it('seeds the store from the policy file on the first start', async () => {
      const policy = await start(await connect());
      expect(await new MikroOrmPolicyRuleStore(open[0]!).load()).to.deep.equal(SHIPPED_RULES);
      expect(await policy.enforce('user', '/api/v1/products/1', 'GET')).to.equal(true);
    });

    it('keeps added and removed rules across a restart, without re-applying the policy file', async () => {
      const first = await connect();
      const firstRun = await start(first);
      expect(await firstRun.add(USER_POST_PRODUCTS)).to.equal(true);
      expect(await firstRun.remove(USER_GET_PRODUCT)).to.equal(true);
      await first.close();

      const secondRun = await start(await connect());

      expect(await secondRun.enforce('user', '/api/v1/products', 'POST')).to.equal(true);
      expect(await secondRun.enforce('user', '/api/v1/products/1', 'GET')).to.equal(false);
      const { policies } = await secondRun.list();
      expect(policies).to.deep.include(USER_POST_PRODUCTS);
      expect(policies).not.to.deep.include(USER_GET_PRODUCT);
      expect(policies).to.have.length(7);
    });

    it('keeps an emptied policy empty across a restart', async () => {
      const first = await connect();
      const firstRun = await start(first);
      for (const rule of (await firstRun.list()).policies) expect(await firstRun.remove(rule)).to.equal(true);
      await first.close();

      const secondRun = await start(await connect());

      expect((await secondRun.list()).policies).to.deep.equal([]);
      expect(await secondRun.enforce('admin', '/api/v1/admin/users', 'GET')).to.equal(false);
    });

    it('picks up changes made by another instance on reload', async () => {
      const mine = await start(await connect());
      const theirs = await start(await connect());
      // Cached decisions of this instance, before the other one changes the rules.
      await mine.enforce('user', '/api/v1/products', 'POST');
      await mine.enforce('user', '/api/v1/products/1', 'GET');

      await theirs.add(USER_POST_PRODUCTS);
      await theirs.remove(USER_GET_PRODUCT);
      await mine.reload();

      expect(await mine.enforce('user', '/api/v1/products', 'POST')).to.equal(true);
      expect(await mine.enforce('user', '/api/v1/products/1', 'GET')).to.equal(false);
      expect(await mine.list()).to.deep.equal(await theirs.list());
    });
  });
});
