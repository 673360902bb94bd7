import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryPolicyRuleStore } from '../../../src/adapters/outbound/memory/InMemoryPolicyRuleStore.js';
import { MikroOrmPolicyRuleStore } from '../../../src/adapters/outbound/mikroorm/MikroOrmPolicyRuleStore.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { policyRuleStoreContract } from './contracts/policyRuleStore.contract.js';

describe('PolicyRuleStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-rules-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  policyRuleStoreContract('InMemoryPolicyRuleStore', {
    setUp: async () => undefined,
    fresh: async () => new InMemoryPolicyRuleStore(),
    tearDown: async () => undefined,
  });

  for (const target of sqlTargets(dir, 'rules.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    policyRuleStoreContract(`MikroOrmPolicyRuleStore on ${target.name}`, {
      setUp: () => database.open(),
      fresh: async () => {
        await database.clear();
        return new MikroOrmPolicyRuleStore(database.db);
      },
      tearDown: () => database.close(),
    });
  }
});
