import { expect } from 'chai';
import type { CasbinAccessPolicy } from '../../../src/adapters/outbound/access/CasbinAccessPolicy.js';
import type { InMemoryPolicyRuleStore } from '../../../src/adapters/outbound/memory/InMemoryPolicyRuleStore.js';
import { AddPolicy } from '../../../src/application/admin/AddPolicy.js';
import { ListPolicies } from '../../../src/application/admin/ListPolicies.js';
import { RemovePolicy } from '../../../src/application/admin/RemovePolicy.js';
import type { PolicyRule } from '../../../src/application/ports/AccessPolicy.js';
import { ConflictError } from '../../../src/domain/shared/DomainError.js';
import { SEED_POLICIES } from '../../support/seedPolicy.js';
import { newAccessPolicy, readPolicyFiles, rejectionOf, type PolicyFiles } from '../world.js';

const DEFAULT_POLICIES: PolicyRule[] = [...SEED_POLICIES];

const sorted = (rules: readonly PolicyRule[]) =>
  [...rules].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('policy administration', () => {
  let files: PolicyFiles;
  let policy: CasbinAccessPolicy;
  let store: InMemoryPolicyRuleStore;

  before(async () => {
    files = await readPolicyFiles();
  });

  beforeEach(async () => {
    ({ policy, store } = await newAccessPolicy(files));
  });

  describe('ListPolicies', () => {
    it('lists the default rules and inheritance', async () => {
      const { policies, inheritance } = await new ListPolicies(policy).execute();
      expect(sorted(policies)).to.deep.equal(sorted(DEFAULT_POLICIES));
      expect(inheritance).to.have.deep.members([
        { role: 'admin', parent: 'moderator' },
        { role: 'moderator', parent: 'user' },
      ]);
    });
  });

  describe('AddPolicy', () => {
    const rule: PolicyRule = { role: 'user', path: '/api/v1/products', action: 'POST', scope: 'all' };

    it('answers the rule, lists it and persists it in the store', async () => {
      expect(await new AddPolicy(policy).execute(rule)).to.deep.equal(rule);
      expect((await new ListPolicies(policy).execute()).policies).to.deep.include(rule);
      expect(await store.load()).to.deep.include({ kind: 'p', values: ['user', '/api/v1/products', 'POST'] });
    });

    it('enforces the added rule at once, even after the old decision was cached', async () => {
      expect(await policy.enforce('user', '/api/v1/products', 'POST')).to.equal(false);
      await new AddPolicy(policy).execute(rule);
      expect(await policy.enforce('user', '/api/v1/products', 'POST')).to.equal(true);
    });

    it('refuses a rule that is already there with a ConflictError, listing it once', async () => {
      const existing: PolicyRule = { role: 'user', path: '/api/v1/products', action: 'GET', scope: 'all' };
      const error = await rejectionOf(new AddPolicy(policy).execute(existing));
      expect(error).to.be.instanceOf(ConflictError);
      expect(error).to.have.property('code', 'CONFLICT');
      expect(
        (await new ListPolicies(policy).execute()).policies.filter(
          (p) => JSON.stringify(p) === JSON.stringify(existing),
        ),
      ).to.have.length(1);
    });

    it('refuses a rule added a second time', async () => {
      await new AddPolicy(policy).execute(rule);
      expect(await rejectionOf(new AddPolicy(policy).execute(rule))).to.be.instanceOf(ConflictError);
    });
  });

  describe('RemovePolicy', () => {
    const rule: PolicyRule = { role: 'user', path: '/api/v1/products/{id}', action: 'GET' };

    it('stops enforcing the removed rule at once, even after the old decision was cached', async () => {
      expect(await policy.enforce('user', '/api/v1/products/42', 'GET')).to.equal(true);
      await new RemovePolicy(policy).execute(rule);
      expect(await policy.enforce('user', '/api/v1/products/42', 'GET')).to.equal(false);
      expect(await policy.enforce('moderator', '/api/v1/products/42', 'GET'), 'moderator has its own rule').to.equal(
        true,
      );
    });

    it('no longer lists or stores the removed rule', async () => {
      await new RemovePolicy(policy).execute(rule);
      expect((await new ListPolicies(policy).execute()).policies).to.not.deep.include(rule);
      expect(await store.load()).to.not.deep.include({ kind: 'p', values: ['user', '/api/v1/products/{id}', 'GET'] });
    });

    it('answers NOT_FOUND for a rule that is not there', async () => {
      const unknown = { role: 'user', path: '/api/v1/products', action: 'DELETE' };
      const error = await rejectionOf(new RemovePolicy(policy).execute(unknown));
      expect(error).to.include({ code: 'NOT_FOUND', message: 'Policy not found' });
      expect((await new ListPolicies(policy).execute()).policies).to.have.length(DEFAULT_POLICIES.length);
    });

    it('answers NOT_FOUND when the same rule is removed twice', async () => {
      await new RemovePolicy(policy).execute(rule);
      expect(await rejectionOf(new RemovePolicy(policy).execute(rule))).to.have.property('code', 'NOT_FOUND');
    });

    describe('keeping the policy manageable (docs/access-rules.md)', () => {
      const adminAll: PolicyRule = { role: 'admin', path: '/api/v1/*', action: '.*', scope: 'all' };
      const adminOnly: PolicyRule = { role: 'admin', path: '/api/v1/admin/*', action: '.*', scope: 'all' };
      const remove = (rule: PolicyRule) => new RemovePolicy(policy).execute(rule);
      const listed = async () => (await new ListPolicies(policy).execute()).policies;

      it('removes one of two rules that reach POST /api/v1/admin/policies, then refuses the other with a ConflictError', async () => {
        await remove(adminOnly);
        const error = await rejectionOf(remove(adminAll));
        expect(error).to.be.instanceOf(ConflictError);
        expect(error).to.include({
          code: 'CONFLICT',
          message: 'no role could manage the access policy without this rule',
        });
        expect(await listed()).to.deep.include(adminAll);
        expect(await store.load()).to.deep.include({ kind: 'p', values: ['admin', '/api/v1/*', '.*'] });
        expect(await policy.enforce('admin', '/api/v1/admin/policies', 'POST')).to.equal(true);
      });

      it('tells no other instance about a refused removal', async () => {
        let announced = 0;
        policy.subscribe(() => (announced += 1));
        await remove(adminOnly);
        expect(announced).to.equal(1);
        await rejectionOf(remove(adminAll));
        expect(announced).to.equal(1);
      });

      it('counts a rule a role gets through inheritance, and a role no user has', async () => {
        await new AddPolicy(policy).execute({ role: 'user', path: '/api/v1/admin/policies', action: 'GET|POST' });
        // admin and moderator inherit it from user; user itself reaches it too.
        await remove(adminOnly);
        await remove(adminAll);
        expect(await policy.enforce('admin', '/api/v1/admin/policies', 'POST')).to.equal(true);
        await new AddPolicy(policy).execute({ role: 'auditor', path: '/api/v1/admin/*', action: 'POST' });
        await remove({ role: 'user', path: '/api/v1/admin/policies', action: 'GET|POST' });
        const error = await rejectionOf(remove({ role: 'auditor', path: '/api/v1/admin/*', action: 'POST' }));
        expect(error).to.be.instanceOf(ConflictError);
      });

      it('does not count a rule for another action or path', async () => {
        await new AddPolicy(policy).execute({
          role: 'moderator',
          path: '/api/v1/admin/policies',
          action: 'GET|DELETE',
        });
        await new AddPolicy(policy).execute({ role: 'moderator', path: '/api/v1/admin/users', action: 'POST' });
        await remove(adminOnly);
        expect(await rejectionOf(remove(adminAll))).to.be.instanceOf(ConflictError);
      });

      it('lets only one of two removals made at the same time succeed when together they would lock everyone out', async () => {
        const results = await Promise.allSettled([remove(adminAll), remove(adminOnly)]);
        expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
        expect(results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason).to.be.instanceOf(
          ConflictError,
        );
        expect(await policy.enforce('admin', '/api/v1/admin/policies', 'POST')).to.equal(true);
        expect((await listed()).filter((rule) => rule.role === 'admin')).to.have.length(1);
      });
    });

    it('stops enforcing a rule that was added and then removed', async () => {
      const added = { role: 'user', path: '/api/v1/products', action: 'POST' };
      await new AddPolicy(policy).execute(added);
      expect(await policy.enforce('user', '/api/v1/products', 'POST')).to.equal(true);
      await new RemovePolicy(policy).execute(added);
      expect(await policy.enforce('user', '/api/v1/products', 'POST')).to.equal(false);
    });
  });
});
