import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryMfaChallengeStore } from '../../../src/adapters/outbound/memory/InMemoryMfaChallengeStore.js';
import { InMemoryTotpStore } from '../../../src/adapters/outbound/memory/InMemoryTotpStore.js';
import { SqlMfaChallengeStore } from '../../../src/adapters/outbound/mikroorm/SqlMfaChallengeStore.js';
import { SqlTotpStore } from '../../../src/adapters/outbound/mikroorm/SqlTotpStore.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { secondFactorStoresContract } from './contracts/secondFactorStores.contract.js';
import { deleteUserIn, registerUserIn } from './sqlUsers.js';

describe('TotpStore and MfaChallengeStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-second-factors-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  secondFactorStoresContract(
    'in memory',
    {
      setUp: async () => undefined,
      fresh: async () => ({
        totp: new InMemoryTotpStore(),
        challenges: new InMemoryMfaChallengeStore(),
        registerUser: async () => undefined,
      }),
      tearDown: async () => undefined,
    },
    { followsUser: false },
  );

  for (const target of sqlTargets(dir, 'second-factors.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    secondFactorStoresContract(
      `SQL on ${target.name}`,
      {
        setUp: () => database.open(),
        fresh: async () => {
          await database.clear();
          return {
            totp: new SqlTotpStore(database.db),
            challenges: new SqlMfaChallengeStore(database.db),
            registerUser: (userId) => registerUserIn(database.db, userId),
            deleteUser: (userId) => deleteUserIn(database.db, userId),
          };
        },
        tearDown: () => database.close(),
      },
      { followsUser: true },
    );
  }
});
