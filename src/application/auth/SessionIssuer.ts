import type { User } from '../../domain/user/User.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';
import type { TokenIssuer } from '../ports/TokenIssuer.js';

/** An access and refresh token pair, as handed to a client. */
export interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Seconds until the access token expires. */
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
    private readonly clock: Clock,
  ) {}

  /** A pair for `user`; a new family unless `familyId` continues one. */
  async issue(user: User, familyId: string = this.ids.newId()): Promise<TokenPair> {
    const tokenId = this.ids.newId();
    const [access, refresh] = await Promise.all([
      this.tokens.issueAccessToken({ userId: user.id, role: user.role }),
      this.tokens.issueRefreshToken({ userId: user.id, role: user.role, tokenId }),
    ]);
    await this.refreshTokens.add({ id: tokenId, familyId, userId: user.id, expiresAt: refresh.expiresAt });
    const expiresIn = Math.max(0, Math.round((access.expiresAt.getTime() - this.clock.now().getTime()) / 1000));
    return { accessToken: access.token, refreshToken: refresh.token, expiresIn };
  }
}
