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
      expect(await store().load()).to.deep.equal([
        ...SEED,
        p('user', '/api/v1/products', 'POST'),
        g('auditor', 'user'),
      ]);
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

    describe('removeIf', () => {
      const adminAll = p('admin', '/api/v1/*', '.*');
      const adminOnly = p('admin', '/api/v1/admin/*', '.*');
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

      it('removes the rule when allowed, asking with every rule that would remain', async () => {
        await store().seed(SEED);
        let seen: StoredRule[] = [];
        expect(
          await store().removeIf(adminAll, async (rest) => {
            seen = rest;
            return true;
          }),
        ).to.equal('removed');
        expect(seen).to.have.deep.members(SEED.filter((rule) => rule !== adminAll && rule !== SEED[2]));
        expect(await store().load()).to.have.deep.members([SEED[0], SEED[1], SEED[3], SEED[4]]);
      });

      it('keeps the rule when refused, changing nothing', async () => {
        await store().seed(SEED);
        expect(await store().removeIf(p('admin', '/api/v1/*', '.*'), async () => false)).to.equal('kept');
        expect(await store().load()).to.have.deep.members(SEED);
        expect(await store().load()).to.have.length(SEED.length);
      });

      it('keeps the rule when the judgement fails, and passes the failure on', async () => {
        await store().seed(SEED);
        let failure: unknown;
        await store()
          .removeIf(p('admin', '/api/v1/*', '.*'), () => Promise.reject(new Error('cannot judge')))
          .catch((error: unknown) => (failure = error));
        expect(failure).to.have.property('message', 'cannot judge');
        expect(await store().load()).to.have.deep.members(SEED);
      });

      it('answers not-found for a rule that is not there, without asking', async () => {
        await store().seed(SEED);
        let asked = false;
        const outcome = await store().removeIf(p('user', '/api/v1/products', 'DELETE'), async () => (asked = true));
        expect(outcome).to.equal('not-found');
        expect(asked).to.equal(false);
        expect(await store().load()).to.have.deep.members(SEED);
      });

      it('never lets two removals, each allowed alone but not together, both happen', async () => {
        for (let round = 0; round < 5; round += 1) {
          await store().replaceAll([...SEED, adminOnly]);
          // Allowed while one of the two admin rules remains; slow, so the two judgements overlap.
          const allowed = async (rest: StoredRule[]) => {
            await sleep(20);
            return rest.some(
              (rule) =>
                JSON.stringify(rule) === JSON.stringify(adminAll) || JSON.stringify(rule) === JSON.stringify(adminOnly),
            );
          };

          const outcomes = await Promise.all([
            store().removeIf(adminAll, allowed),
            store().removeIf(adminOnly, allowed),
          ]);

          expect([...outcomes].sort(), `round ${round}`).to.deep.equal(['kept', 'removed']);
          const left = ((await store().load()) ?? []).filter((rule) => rule.values[0] === 'admin' && rule.kind === 'p');
          expect(left, `round ${round}`).to.have.length(1);
        }
      });
    });

    describe('replaceAll', () => {
      it('makes the rules exactly the given ones, answering what it removed and added', async () => {
        await store().seed(SEED);
        await store().remove(SEED[2]!);
        await store().add(p('intruder', '/api/v1/*', '.*'));
        await store().add(g('intruder', 'admin'));

        const replaced = await store().replaceAll(SEED);

        expect(replaced.removed).to.have.deep.members([p('intruder', '/api/v1/*', '.*'), g('intruder', 'admin')]);
        expect(replaced.added).to.deep.equal([SEED[2]]);
        expect(await store().load()).to.have.deep.members(SEED);
        expect(await store().load()).to.have.length(SEED.length);
      });

      it('answers nothing removed or added when the rules already are the given ones', async () => {
        await store().seed(SEED);
        expect(await store().replaceAll([...SEED].reverse())).to.deep.equal({ removed: [], added: [] });
        expect(await store().load()).to.have.deep.members(SEED);
      });

      it('seeds a store never seeded, storing a repeated rule once', async () => {
        const replaced = await store().replaceAll([...SEED, SEED[0]!]);
        expect(replaced).to.deep.equal({ removed: [], added: SEED });
        expect(await store().load()).to.have.deep.members(SEED);
        expect(await store().load()).to.have.length(SEED.length);
        await store().seed([p('late', '/api/v1/*', '.*')]);
        expect(await store().load()).to.have.length(SEED.length);
      });
    });

    it('is not seeded by an add: load stays undefined until seed', async () => {
      await store().add(p('user', '/api/v1/products', 'POST'));
      expect(await store().load()).to.equal(undefined);
    });
  });
}
