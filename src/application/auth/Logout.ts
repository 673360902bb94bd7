import { UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { SessionEnder } from '../account/SessionEnder.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';
import type { TokenIssuer } from '../ports/TokenIssuer.js';

/**
 * Ends the session of a refresh token: it and its whole family stop working, and so do the access
 * tokens issued to the session. The token must be the caller's own.
 */
export class Logout {
  constructor(
    private readonly tokens: TokenIssuer,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly ender: SessionEnder,
  ) {}

  async execute(input: { readonly userId: string; readonly refreshToken: string }): Promise<void> {
    const claims = await this.tokens.verifyRefreshToken(input.refreshToken);
    if (!claims || claims.userId !== input.userId) throw new UnauthorizedError('invalid token');
    const record = await this.refreshTokens.find(claims.tokenId);
    if (!record) throw new UnauthorizedError('invalid token');
    // An already ended session ends again as a no-op: logout stays idempotent for its own token.
    await this.ender.endOne(record.userId, record.familyId);
  }
}
