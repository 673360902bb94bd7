import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryEmailTokenStore } from '../../../src/adapters/outbound/memory/InMemoryEmailTokenStore.js';
import { MikroOrmEmailTokenStore } from '../../../src/adapters/outbound/mikroorm/MikroOrmEmailTokenStore.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { emailTokenStoreContract } from './contracts/emailTokenStore.contract.js';
import { deleteUserIn, registerUserIn } from './sqlUsers.js';

describe('EmailTokenStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-email-tokens-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  emailTokenStoreContract(
    'InMemoryEmailTokenStore',
    {
      setUp: async () => undefined,
      fresh: async () => ({ store: new InMemoryEmailTokenStore(), registerUser: async () => undefined }),
      tearDown: async () => undefined,
    },
    { survivesRestart: false, followsUser: false },
  );

  for (const target of sqlTargets(dir, 'email-tokens.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    emailTokenStoreContract(
      `MikroOrmEmailTokenStore on ${target.name}`,
      {
        setUp: () => database.open(),
        fresh: async () => {
          await database.clear();
          return {
            store: new MikroOrmEmailTokenStore(database.db),
            registerUser: (userId) => registerUserIn(database.db, userId),
            deleteUser: (userId) => deleteUserIn(database.db, userId),
            restart: async () => new MikroOrmEmailTokenStore(await database.restart()),
          };
        },
        tearDown: () => database.close(),
      },
      { survivesRestart: target.persistent, followsUser: true },
    );
  }
});
