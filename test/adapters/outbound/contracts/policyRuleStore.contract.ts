import { expect } from 'chai';
import type { PolicyRuleStore, StoredRule } from '../../../../src/adapters/outbound/access/PolicyRuleStore.js';
import { describeContract, type ContractSubject } from './databases.js';

const p = (role: string, path: string, action: string): StoredRule => ({ kind: 'p', values: [role, path, action] });
const g = (role: string, parent: string): StoredRule => ({ kind: 'g', values: [role, parent] });

/** Seed rules with `p` and `g` lines interleaved, in an order that is not alphabetical. */
const SEED: readonly StoredRule[] = [
  p('user', '/api/v1/products', 'GET'),
  g('moderator', 'user'),
  p('admin', '/api/v1/*', '.*'),
  p('moderator', '/api/v1/products/{id}', '.*'),
  g('admin', 'moderator'),
];

/** The behaviour every PolicyRuleStore promises, whichever storage is behind it. */
export function policyRuleStoreContract(name: string, subject: ContractSubject<PolicyRuleStore>): void {
  describeContract(`PolicyRuleStore contract: ${name}`, subject, (store) => {
    it('loads undefined before it was ever seeded', async () => {
      expect(await store().load()).to.equal(undefined);
    });

    it('loads the seeded rules, in the order they were seeded', async () => {
      await store().seed(SEED);
      expect(await store().load()).to.deep.equal(SEED);
    });

    it('ignores a second seed: the first rules stand', async () => {
      await store().seed(SEED);
      await store().seed([p('intruder', '/api/v1/*', '.*')]);
      expect(await store().load()).to.deep.equal(SEED);
    });

    it('counts an empty seed as seeded', async () => {
      await store().seed([]);
      expect(await store().load()).to.deep.equal([]);
      await store().seed(SEED);
      expect(await store().load()).to.deep.equal([]);
    });

    it('adds a new rule after the seeded ones, and answers true', async () => {
      await store().seed(SEED);
      expect(await store().add(p('user', '/api/v1/products', 'POST'))).to.equal(true);
      expect(await store().add(g('auditor', 'user'))).to.equal(true);
      expect(await store().load()).to.deep.equal([...SEED, p('user', '/api/v1/products', 'POST'), g('auditor', 'user')]);
    });

    it('answers false, and stores nothing twice, when the rule is already there', async () => {
      await store().seed(SEED);
      expect(await store().add(p('user', '/api/v1/products', 'GET'))).to.equal(false);
      expect(await store().add(g('admin', 'moderator'))).to.equal(false);
      expect(await store().add(p('user', '/api/v1/profile', 'GET'))).to.equal(true);
      expect(await store().add(p('user', '/api/v1/profile', 'GET'))).to.equal(false);
      expect(await store().load()).to.deep.equal([...SEED, p('user', '/api/v1/profile', 'GET')]);
    });

    it('tells a p rule from a g rule with the same first values', async () => {
      await store().seed([g('user', 'guest')]);
      expect(await store().add(p('user', 'guest', ''))).to.equal(true);
      expect(await store().remove(p('user', 'guest', ''))).to.equal(true);
      expect(await store().load()).to.deep.equal([g('user', 'guest')]);
    });

    it('removes a rule, answering true, then false once it is gone', async () => {
      await store().seed(SEED);
      expect(await store().remove(p('admin', '/api/v1/*', '.*'))).to.equal(true);
      expect(await store().remove(p('admin', '/api/v1/*', '.*'))).to.equal(false);
      expect(await store().remove(g('moderator', 'user'))).to.equal(true);
      expect(await store().load()).to.deep.equal([SEED[0], SEED[3], SEED[4]]);
    });

    it('answers false when removing a rule that never existed, and removes nothing else', async () => {
      await store().seed(SEED);
      expect(await store().remove(p('user', '/api/v1/products', 'DELETE'))).to.equal(false);
      expect(await store().remove(p('user', '/api/v1/products', 'get'))).to.equal(false);
      expect(await store().load()).to.deep.equal(SEED);
    });

    it('stays seeded once emptied: loads [] rather than undefined', async () => {
      await store().seed(SEED);
      for (const rule of SEED) expect(await store().remove(rule)).to.equal(true);
      expect(await store().load()).to.deep.equal([]);
      await store().seed(SEED);
      expect(await store().load()).to.deep.equal([]);
    });

    it('is not seeded by an add: load stays undefined until seed', async () => {
      await store().add(p('user', '/api/v1/products', 'POST'));
      expect(await store().load()).to.equal(undefined);
    });
  });
}
