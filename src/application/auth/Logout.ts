import { UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { Clock } from '../ports/Clock.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';
import type { TokenIssuer } from '../ports/TokenIssuer.js';

/**
 * Ends a session: the caller's refresh token and its whole family stop working.
 * The token must be the caller's own.
 */
export class Logout {
  constructor(
    private readonly tokens: TokenIssuer,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly userId: string; readonly refreshToken: string }): Promise<void> {
    const claims = await this.tokens.verifyRefreshToken(input.refreshToken);
    if (!claims || claims.userId !== input.userId) throw new UnauthorizedError('invalid token');
    const record = await this.refreshTokens.find(claims.tokenId);
    if (!record) throw new UnauthorizedError('invalid token');
    await this.refreshTokens.revokeFamily(record.familyId, this.clock.now());
  }
}
