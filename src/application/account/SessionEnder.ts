import type { Clock } from '../ports/Clock.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';
import type { SessionStore } from '../ports/SessionStore.js';

/**
 * Ends sessions (docs/authentication.md): the session is marked ended — from then on its access tokens are
 * refused (the caller lookup reads it) and refreshing fails — and its refresh family is revoked as
 * well, so a refresh token of it counts as revoked wherever families are checked.
 */
export class SessionEnder {
  constructor(
    private readonly sessions: SessionStore,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly clock: Clock,
  ) {}

  /** Ends one active session of the user; `false` when it has no such session. */
  async endOne(userId: string, sessionId: string): Promise<boolean> {
    const now = this.clock.now();
    if (!(await this.sessions.end(userId, sessionId, now))) return false;
    await this.refreshTokens.revokeFamily(sessionId, now);
    return true;
  }

  /** Ends every active session of the user, but `keep` when given. */
  async endAll(userId: string, keep?: string): Promise<void> {
    const now = this.clock.now();
    const ended = await this.sessions.endAll(userId, now, keep);
    for (const id of ended) await this.refreshTokens.revokeFamily(id, now);
  }
}
