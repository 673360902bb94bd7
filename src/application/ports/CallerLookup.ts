import type { User } from '../../domain/user/User.js';

/**
 * The one lookup behind every authenticated request (docs/authentication.md): the token's user, provided it
 * still exists and the token's session is still active. Adapters answer it with one read (and may
 * remember answers for at most a second).
 */
export interface CallerLookup {
  /**
   * The user, when it exists and `sessionId` is one of its active sessions at `now`. Read it, never
   * change it: an adapter that remembers answers may give the same one to every request.
   */
  find(userId: string, sessionId: string, now: Date): Promise<User | undefined>;
}
