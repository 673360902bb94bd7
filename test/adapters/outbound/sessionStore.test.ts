import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySessionStore } from '../../../src/adapters/outbound/memory/InMemorySessionStore.js';
import { MikroOrmSessionStore } from '../../../src/adapters/outbound/mikroorm/MikroOrmSessionStore.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { sessionStoreContract } from './contracts/sessionStore.contract.js';
import { deleteUserIn, registerUserIn } from './sqlUsers.js';

describe('SessionStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-sessions-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  sessionStoreContract(
    'InMemorySessionStore',
    {
      setUp: async () => undefined,
      fresh: async () => ({ store: new InMemorySessionStore(), registerUser: async () => undefined }),
      tearDown: async () => undefined,
    },
    { survivesRestart: false, followsUser: false },
  );

  for (const target of sqlTargets(dir, 'sessions.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    sessionStoreContract(
      `MikroOrmSessionStore on ${target.name}`,
      {
        setUp: () => database.open(),
        fresh: async () => {
          await database.clear();
          return {
            store: new MikroOrmSessionStore(database.db),
            registerUser: (userId) => registerUserIn(database.db, userId),
            deleteUser: (userId) => deleteUserIn(database.db, userId),
            restart: async () => new MikroOrmSessionStore(await database.restart()),
          };
        },
        tearDown: () => database.close(),
      },
      { survivesRestart: target.persistent, followsUser: true },
    );
  }
});
