import type { User } from '../../domain/user/User.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';
import type { TokenIssuer } from '../ports/TokenIssuer.js';

/** An access and refresh token pair, as handed to a client. */
export interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Lifetime of the access token in seconds (`jwt.expiration`). */
  readonly expiresIn: number;
}

/**
 * Issues token pairs and remembers each refresh token in its family. Shared by register,
 * login (each starts a new family) and refresh (continues one).
 */
export class SessionIssuer {
  constructor(
    private readonly tokens: TokenIssuer,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly ids: IdGenerator,
  ) {}

  /** A pair for `user`; a new family unless `familyId` continues one. */
  async issue(user: User, familyId: string = this.ids.newId()): Promise<TokenPair> {
    const tokenId = this.ids.newId();
    const [access, refresh] = await Promise.all([
      this.tokens.issueAccessToken({ userId: user.id, role: user.role, sessionId: familyId }),
      this.tokens.issueRefreshToken({ userId: user.id, role: user.role, tokenId }),
    ]);
    await this.refreshTokens.add({ id: tokenId, familyId, userId: user.id, expiresAt: refresh.expiresAt });
    // The access token's lifetime (`exp - iat`), as the TokenIssuer port defines `expires_in`. Measuring
    // `exp - now` instead loses a second whenever `iat` was rounded down (86399 for a 24h token).
    const expiresIn = this.tokens.accessTokenTtlSeconds;
    return { accessToken: access.token, refreshToken: refresh.token, expiresIn };
  }
}
