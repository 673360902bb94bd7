import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryPasskeyChallengeStore } from '../../../src/adapters/outbound/memory/InMemoryPasskeyChallengeStore.js';
import { InMemoryPasskeyStore } from '../../../src/adapters/outbound/memory/InMemoryPasskeyStore.js';
import { SqlPasskeyChallengeStore } from '../../../src/adapters/outbound/mikroorm/SqlPasskeyChallengeStore.js';
import { SqlPasskeyStore } from '../../../src/adapters/outbound/mikroorm/SqlPasskeyStore.js';
import { SqlTransactions } from '../../../src/adapters/outbound/mikroorm/SqlTransactions.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { passkeyStoresContract } from './contracts/passkeyStores.contract.js';
import { deleteUserIn, registerUserIn } from './sqlUsers.js';

describe('PasskeyStore and PasskeyChallengeStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-passkeys-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  passkeyStoresContract(
    'in memory',
    {
      setUp: async () => undefined,
      fresh: async () => ({
        passkeys: new InMemoryPasskeyStore(),
        challenges: new InMemoryPasskeyChallengeStore(),
        registerUser: async () => undefined,
      }),
      tearDown: async () => undefined,
    },
    { followsUser: false },
  );

  for (const target of sqlTargets(dir, 'passkeys.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    passkeyStoresContract(
      `SQL on ${target.name}`,
      {
        setUp: () => database.open(),
        fresh: async () => {
          await database.clear();
          return {
            passkeys: new SqlPasskeyStore(database.db),
            challenges: new SqlPasskeyChallengeStore(database.db),
            registerUser: (userId) => registerUserIn(database.db, userId),
            deleteUser: (userId) => deleteUserIn(database.db, userId),
            transactions: new SqlTransactions(database.db),
          };
        },
        tearDown: () => database.close(),
      },
      { followsUser: true },
    );
  }
});
