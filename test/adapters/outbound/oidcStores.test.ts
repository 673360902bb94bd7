import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryIdentityStore } from '../../../src/adapters/outbound/memory/InMemoryIdentityStore.js';
import { InMemoryOidcHandoffStore } from '../../../src/adapters/outbound/memory/InMemoryOidcHandoffStore.js';
import { SqlIdentityStore } from '../../../src/adapters/outbound/mikroorm/SqlIdentityStore.js';
import { SqlOidcHandoffStore } from '../../../src/adapters/outbound/mikroorm/SqlOidcHandoffStore.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { oidcStoresContract } from './contracts/oidcStores.contract.js';
import { deleteUserIn, registerUserIn } from './sqlUsers.js';

describe('IdentityStore and OidcHandoffStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-oidc-stores-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  oidcStoresContract(
    'in memory',
    {
      setUp: async () => undefined,
      fresh: async () => ({
        identities: new InMemoryIdentityStore(),
        handoffs: new InMemoryOidcHandoffStore(),
        registerUser: async () => undefined,
      }),
      tearDown: async () => undefined,
    },
    { followsUser: false },
  );

  for (const target of sqlTargets(dir, 'oidc-stores.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    oidcStoresContract(
      `SQL on ${target.name}`,
      {
        setUp: () => database.open(),
        fresh: async () => {
          await database.clear();
          return {
            identities: new SqlIdentityStore(database.db),
            handoffs: new SqlOidcHandoffStore(database.db),
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
