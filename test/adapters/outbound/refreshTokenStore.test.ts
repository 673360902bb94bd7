import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryRefreshTokenStore } from '../../../src/adapters/outbound/memory/InMemoryRefreshTokenStore.js';
import { MikroOrmRefreshTokenStore } from '../../../src/adapters/outbound/mikroorm/MikroOrmRefreshTokenStore.js';
import { MikroOrmUserRepository } from '../../../src/adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { User } from '../../../src/domain/user/User.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';
import { refreshTokenStoreContract } from './contracts/refreshTokenStore.contract.js';

describe('RefreshTokenStore implementations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-tokens-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  refreshTokenStoreContract(
    'InMemoryRefreshTokenStore',
    {
      setUp: async () => undefined,
      fresh: async () => ({ store: new InMemoryRefreshTokenStore(), registerUser: async () => undefined }),
      tearDown: async () => undefined,
    },
    { survivesRestart: false },
  );

  for (const target of sqlTargets(dir, 'tokens.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    refreshTokenStoreContract(
      `MikroOrmRefreshTokenStore on ${target.name}`,
      {
        setUp: () => database.open(),
        fresh: async () => {
          await database.clear();
          return {
            store: new MikroOrmRefreshTokenStore(database.db),
            // refresh_tokens.user_id references users.id: the user must exist first.
            registerUser: async (userId) => {
              const user = User.register(
                {
                  id: userId,
                  email: `${userId}@example.com`,
                  firstName: 'Token',
                  lastName: 'Holder',
                  role: 'user',
                  passwordHash: 'x',
                },
                new Date('2026-01-01T00:00:00Z'),
              );
              await new MikroOrmUserRepository(database.db).add(user);
            },
            restart: async () => new MikroOrmRefreshTokenStore(await database.restart()),
          };
        },
        tearDown: () => database.close(),
      },
      { survivesRestart: target.persistent },
    );
  }
});
