import type { SignInMethod } from '../../domain/user/SignInMethod.js';
import type { User } from '../../domain/user/User.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';
import type { SessionStore } from '../ports/SessionStore.js';
import type { TokenIssuer } from '../ports/TokenIssuer.js';

/** An access and refresh token pair, as handed to a client. */
export interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Lifetime of the access token in seconds (`jwt.expiration`). */
  readonly expiresIn: number;
}

/** Who started a session, as the sessions list shows it. */
export interface ClientInfo {
  readonly userAgent: string | null;
  readonly ip: string | null;
}

/** The longest `User-Agent` a session keeps. */
export const USER_AGENT_MAX_LENGTH = 500;

/** What SessionIssuer is given, by name. */
export interface SessionIssuerDependencies {
  readonly tokens: TokenIssuer;
  readonly refreshTokens: RefreshTokenStore;
  readonly sessions: SessionStore;
  readonly ids: IdGenerator;
  readonly clock: Clock;
}

/**
 * Issues token pairs. A new pair either starts a session (register, login, a second factor: a new
 * refresh family, recorded with the client that started it) or continues one (refresh: the
 * session's last use and expiry move). Every access token carries its session's id, so ending the
 * session refuses it, and how the session was signed in to (`amr`: `pwd`, `otp`, `hwk`, `fed`),
 * which the refresh token carries on to the pairs that continue it.
 */
export class SessionIssuer {
  constructor(private readonly deps: SessionIssuerDependencies) {}

  /** A pair for `user` in a new session started by `client`, signed in to by `amr` (a password when not said). */
  async start(user: User, client: ClientInfo, amr: readonly SignInMethod[] = ['pwd']): Promise<TokenPair> {
    const sessionId = this.deps.ids.newId();
    return this.pair(user, sessionId, amr, async (expiresAt) => {
      const now = this.deps.clock.now();
      const userAgent = client.userAgent === null ? null : client.userAgent.slice(0, USER_AGENT_MAX_LENGTH);
      await this.deps.sessions.start({
        id: sessionId,
        userId: user.id,
        createdAt: now,
        lastUsedAt: now,
        expiresAt,
        userAgent,
        ip: client.ip,
      });
    });
  }

  /** A pair for `user` continuing session `sessionId` (a refresh), signed in to by `amr`. */
  continue(user: User, sessionId: string, amr: readonly SignInMethod[] | undefined): Promise<TokenPair> {
    return this.pair(user, sessionId, amr, (expiresAt) =>
      this.deps.sessions.touch(sessionId, this.deps.clock.now(), expiresAt),
    );
  }

  /** Signs the pair, records the session (`record`, given the refresh token's expiry), then remembers the refresh token. */
  private async pair(
    user: User,
    sessionId: string,
    amr: readonly SignInMethod[] | undefined,
    record: (expiresAt: Date) => Promise<void>,
  ): Promise<TokenPair> {
    const tokenId = this.deps.ids.newId();
    const methods = amr === undefined ? {} : { amr };
    const [access, refresh] = await Promise.all([
      this.deps.tokens.issueAccessToken({ userId: user.id, role: user.role, sessionId, ...methods }),
      this.deps.tokens.issueRefreshToken({ userId: user.id, role: user.role, tokenId, ...methods }),
    ]);
    await record(refresh.expiresAt);
    await this.deps.refreshTokens.add({
      id: tokenId,
      familyId: sessionId,
      userId: user.id,
      expiresAt: refresh.expiresAt,
    });
    // The access token's lifetime (`exp - iat`), as the TokenIssuer port defines `expires_in`. Measuring
    // `exp - now` instead loses a second whenever `iat` was rounded down (86399 for a 24h token).
    const expiresIn = this.deps.tokens.accessTokenTtlSeconds;
    return { accessToken: access.token, refreshToken: refresh.token, expiresIn };
  }
}
