import type { CallerLookup } from '../../../application/ports/CallerLookup.js';
import type { SessionStore } from '../../../application/ports/SessionStore.js';
import type { User } from '../../../domain/user/User.js';
import type { UserRepository } from '../../../domain/user/UserRepository.js';

/** The caller from the in-memory users and sessions: two reads, fine in memory. */
export class InMemoryCallerLookup implements CallerLookup {
  constructor(
    private readonly users: UserRepository,
    private readonly sessions: SessionStore,
  ) {}

  async find(userId: string, sessionId: string, now: Date): Promise<User | undefined> {
    if (!(await this.sessions.isActive(userId, sessionId, now))) return undefined;
    return this.users.findById(userId);
  }
}
