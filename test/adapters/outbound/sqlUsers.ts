import type { Database } from '../../../src/adapters/outbound/mikroorm/database.js';
import { MikroOrmUserRepository } from '../../../src/adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { User } from '../../../src/domain/user/User.js';

/** Makes the users row a stored record refers to (its user_id references users.id). */
export async function registerUserIn(db: Database, userId: string): Promise<void> {
  const user = User.register(
    {
      id: userId,
      email: `${userId}@example.com`,
      firstName: 'Record',
      lastName: 'Holder',
      role: 'user',
      passwordHash: 'x',
    },
    new Date('2026-01-01T00:00:00Z'),
  );
  await new MikroOrmUserRepository(db).add(user);
}

/** Deletes the users row (its records go with it: foreign keys on delete cascade). */
export async function deleteUserIn(db: Database, userId: string): Promise<void> {
  await new MikroOrmUserRepository(db).delete(userId);
}
