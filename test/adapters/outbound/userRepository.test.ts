import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryUserRepository } from '../../../src/adapters/outbound/memory/InMemoryUserRepository.js';
import { MikroOrmUserRepository } from '../../../src/adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { userRepositoryContract } from './contracts/userRepository.contract.js';

describe('UserRepository implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-users-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  userRepositoryContract('InMemoryUserRepository', {
    setUp: async () => undefined,
    fresh: async () => new InMemoryUserRepository(),
    tearDown: async () => undefined,
  });

  for (const target of sqlTargets(dir, 'users.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    userRepositoryContract(`MikroOrmUserRepository on ${target.name}`, {
      setUp: () => database.open(),
      fresh: async () => {
        await database.clear();
        return new MikroOrmUserRepository(database.db);
      },
      tearDown: () => database.close(),
    });
  }
});
