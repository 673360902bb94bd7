import { UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';
import type { SessionStore } from '../ports/SessionStore.js';
import type { SessionEnder } from '../account/SessionEnder.js';
import type { TokenIssuer } from '../ports/TokenIssuer.js';
import type { SessionIssuer, TokenPair } from './SessionIssuer.js';

/** What RefreshSession is given, by name. */
export interface RefreshSessionDependencies {
  readonly tokens: TokenIssuer;
  readonly refreshTokens: RefreshTokenStore;
  readonly users: UserRepository;
  readonly sessions: SessionStore;
  readonly issuer: SessionIssuer;
  readonly clock: Clock;
  readonly ender: SessionEnder;
}

/**
 * Exchanges a refresh token for a new pair. Each refresh token works once: presenting a spent
 * one again ends its whole session (every token descended from the same login, access tokens
 * included) and fails.
 * The new access token carries the user's current role. A deleted user's tokens fail, and so do
 * the tokens of an ended session.
 */
export class RefreshSession {
  constructor(private readonly deps: RefreshSessionDependencies) {}

  async execute(input: { readonly refreshToken: string }): Promise<TokenPair> {
    const { tokens, clock, refreshTokens, ender, users, sessions, issuer } = this.deps;
    const claims = await tokens.verifyRefreshToken(input.refreshToken);
    if (!claims) throw new UnauthorizedError('invalid token');
    const now = clock.now();
    const { outcome, record } = await refreshTokens.consume(claims.tokenId, now);
    if (outcome === 'reused' && record) {
      // A replayed token means it leaked: the whole session ends, its access tokens with it.
      if (!(await ender.endOne(record.userId, record.familyId))) await refreshTokens.revokeFamily(record.familyId, now);
      throw new UnauthorizedError('refresh token already used');
    }
    if (outcome !== 'consumed' || !record || record.userId !== claims.userId)
      throw new UnauthorizedError('invalid token');
    const [user, active] = await Promise.all([
      users.findById(record.userId),
      sessions.isActive(record.userId, record.familyId, now),
    ]);
    if (!user || !active) throw new UnauthorizedError('invalid token');
    return issuer.continue(user, record.familyId, claims.amr);
  }
}
