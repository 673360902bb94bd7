import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryCallerLookup } from '../../../src/adapters/outbound/memory/InMemoryCallerLookup.js';
import { InMemorySessionStore } from '../../../src/adapters/outbound/memory/InMemorySessionStore.js';
import { InMemoryUserRepository } from '../../../src/adapters/outbound/memory/InMemoryUserRepository.js';
import { SqlCallerLookup } from '../../../src/adapters/outbound/mikroorm/SqlCallerLookup.js';
import { MikroOrmSessionStore } from '../../../src/adapters/outbound/mikroorm/MikroOrmSessionStore.js';
import { MikroOrmUserRepository } from '../../../src/adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { callerLookupContract } from './contracts/callerLookup.contract.js';

describe('CallerLookup implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-callers-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  callerLookupContract('InMemoryCallerLookup', {
    setUp: async () => undefined,
    fresh: async () => {
      const users = new InMemoryUserRepository();
      const sessions = new InMemorySessionStore();
      return {
        lookup: new InMemoryCallerLookup(users, sessions),
        addUser: (user) => users.add(user),
        deleteUser: async (userId) => void (await users.delete(userId)),
        startSession: (record) => sessions.start(record),
        endSession: async (userId, id, now) => void (await sessions.end(userId, id, now)),
      };
    },
    tearDown: async () => undefined,
  });

  for (const target of sqlTargets(dir, 'callers.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    callerLookupContract(`SqlCallerLookup on ${target.name}`, {
      setUp: () => database.open(),
      fresh: async () => {
        await database.clear();
        const users = new MikroOrmUserRepository(database.db);
        const sessions = new MikroOrmSessionStore(database.db);
        return {
          lookup: new SqlCallerLookup(database.db),
          addUser: (user) => users.add(user),
          deleteUser: async (userId) => void (await users.delete(userId)),
          startSession: (record) => sessions.start(record),
          endSession: async (userId, id, now) => void (await sessions.end(userId, id, now)),
        };
      },
      tearDown: () => database.close(),
    });
  }
});
