import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CasbinAccessPolicy } from '../../../../src/adapters/outbound/access/CasbinAccessPolicy.js';
import { parsePolicyCsv, type StoredRule } from '../../../../src/adapters/outbound/access/PolicyRuleStore.js';
import { InMemoryPolicyRuleStore } from '../../../../src/adapters/outbound/memory/InMemoryPolicyRuleStore.js';
import { MikroOrmPolicyRuleStore } from '../../../../src/adapters/outbound/mikroorm/MikroOrmPolicyRuleStore.js';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import type { PolicyRule } from '../../../../src/application/ports/AccessPolicy.js';
import { connectDatabase } from '../../../support/database.js';

const MODEL = readFileSync(new URL('../../../../policy/model.conf', import.meta.url), 'utf8');

const ORDERS = '/api/v1/book-orders';
const ORDER = '/api/v1/book-orders/{id}';

/** An owned resource's rules as the generator writes them: `user` its own rows, `moderator` all. */
const OWNED_CSV = `
p, admin, /api/v1/*, .*
p, user, ${ORDERS}, (GET)|(POST), own
p, user, ${ORDER}, (GET)|(PUT)|(DELETE), own
p, moderator, ${ORDERS}, .*, all
p, moderator, ${ORDER}, .*
g, admin, moderator
g, moderator, user
`;

const policyOf = (csv: string): Promise<CasbinAccessPolicy> =>
  CasbinAccessPolicy.create(MODEL, new InMemoryPolicyRuleStore(), parsePolicyCsv(csv));

describe('access rule scopes (all and own)', () => {
  describe('the policy file', () => {
    it('reads a fifth field, own or all; all is the default and is stored as a plain line', () => {
      expect(parsePolicyCsv(OWNED_CSV)).to.deep.equal([
        { kind: 'p', values: ['admin', '/api/v1/*', '.*'] },
        { kind: 'p', values: ['user', ORDERS, '(GET)|(POST)', 'own'] },
        { kind: 'p', values: ['user', ORDER, '(GET)|(PUT)|(DELETE)', 'own'] },
        { kind: 'p', values: ['moderator', ORDERS, '.*'] },
        { kind: 'p', values: ['moderator', ORDER, '.*'] },
        { kind: 'g', values: ['admin', 'moderator'] },
        { kind: 'g', values: ['moderator', 'user'] },
      ] satisfies StoredRule[]);
    });

    it('refuses a scope other than all or own, naming the line', () => {
      expect(() => parsePolicyCsv(`p, user, ${ORDERS}, GET, mine`)).to.throw(
        /policy line 1 is not "p, role, path, action\[, all\|own\]".*mine/,
      );
      expect(() => parsePolicyCsv(`g, user, moderator, own`)).to.throw(/policy line 1/);
    });
  });

  describe('deciding', () => {
    let policy: CasbinAccessPolicy;
    beforeEach(async () => {
      policy = await policyOf(OWNED_CSV);
    });

    it('a role reaching the path only through an own rule sees its own rows', async () => {
      expect(await policy.scopeOf('user', ORDERS, 'GET')).to.equal('own');
      expect(await policy.scopeOf('user', '/api/v1/book-orders/42', 'DELETE')).to.equal('own');
      expect(await policy.enforce('user', ORDERS, 'POST')).to.equal(true);
    });

    it('all wins over own: its own all rule, and one inherited through g', async () => {
      // moderator inherits user's own rules, and has all rules of its own.
      expect(await policy.scopeOf('moderator', ORDERS, 'GET')).to.equal('all');
      // admin has no rule for the path but inherits moderator's all (and user's own) through g.
      expect(await policy.scopeOf('admin', '/api/v1/book-orders/42', 'PUT')).to.equal('all');
    });

    it('an own rule that does not match the action is no reach; no rule at all is none', async () => {
      expect(await policy.scopeOf('user', ORDERS, 'DELETE')).to.equal(undefined);
      expect(await policy.enforce('user', ORDERS, 'DELETE')).to.equal(false);
      expect(await policy.scopeOf('guest', ORDERS, 'GET')).to.equal(undefined);
    });

    it('lists every rule with its scope stated', async () => {
      const { policies } = await policy.list();
      expect(policies).to.deep.include({ role: 'user', path: ORDERS, action: '(GET)|(POST)', scope: 'own' });
      expect(policies).to.deep.include({ role: 'moderator', path: ORDERS, action: '.*', scope: 'all' });
    });

    it('an added all rule widens a cached own decision at once; removing it narrows it back', async () => {
      expect(await policy.scopeOf('user', ORDERS, 'GET')).to.equal('own');
      const widen: PolicyRule = { role: 'user', path: ORDERS, action: '(GET)|(POST)', scope: 'all' };
      expect(await policy.add(widen)).to.equal(true);
      expect(await policy.scopeOf('user', ORDERS, 'GET')).to.equal('all');
      expect(await policy.remove(widen)).to.equal(true);
      // The own twin of the same line still stands.
      expect(await policy.scopeOf('user', ORDERS, 'GET')).to.equal('own');
    });

    it('a rule is its four parts: the own rule is removed only as own', async () => {
      const own: PolicyRule = { role: 'user', path: ORDERS, action: '(GET)|(POST)', scope: 'own' };
      expect(await policy.remove({ ...own, scope: 'all' })).to.equal(false);
      expect(await policy.add(own)).to.equal(false);
      expect(await policy.remove(own)).to.equal(true);
      expect(await policy.scopeOf('user', ORDERS, 'GET')).to.equal(undefined);
      // moderator keeps its all rule.
      expect(await policy.scopeOf('moderator', ORDERS, 'GET')).to.equal('all');
    });
  });

  describe('kept in the database (SQLite file)', () => {
    let dir: string;
    const open: Database[] = [];
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'portico-scopes-'));
    });
    afterEach(async () => {
      for (const db of open.splice(0)) await db.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });
    const connect = async (): Promise<Database> => {
      const db = await connectDatabase(`sqlite:${join(dir, 'policy.sqlite')}`);
      await db.migrate();
      open.push(db);
      return db;
    };

    it('stores each rule with its scope, and the same line of both scopes as two rules', async () => {
      const first = await connect();
      const policy = await CasbinAccessPolicy.create(
        MODEL,
        new MikroOrmPolicyRuleStore(first),
        parsePolicyCsv(OWNED_CSV),
      );
      expect(await policy.add({ role: 'user', path: ORDERS, action: '(GET)|(POST)', scope: 'all' })).to.equal(true);
      await first.close();

      const again = await CasbinAccessPolicy.create(MODEL, new MikroOrmPolicyRuleStore(await connect()), []);
      const { policies } = await again.list();
      expect(policies.filter((p) => p.role === 'user' && p.path === ORDERS)).to.have.deep.members([
        { role: 'user', path: ORDERS, action: '(GET)|(POST)', scope: 'own' },
        { role: 'user', path: ORDERS, action: '(GET)|(POST)', scope: 'all' },
      ]);
      expect(await again.scopeOf('user', ORDER.replace('{id}', '1'), 'GET')).to.equal('own');
      expect(await again.scopeOf('user', ORDERS, 'GET')).to.equal('all');
    });
  });
});
