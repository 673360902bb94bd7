import { randomBytes } from 'node:crypto';
import type { SignInMethod } from '../../src/domain/user/SignInMethod.js';
import type { Clock } from '../../src/application/ports/Clock.js';
import type { AccessClaims, IssuedToken, RefreshClaims, TokenIssuer } from '../../src/application/ports/TokenIssuer.js';

export type FakeTokenType = 'access' | 'refresh';

/** Everything the fake remembers about a token it signed. */
export interface FakeTokenEntry {
  readonly type: FakeTokenType;
  readonly userId: string;
  readonly role: string;
  /** The refresh token's own id (`jti`); undefined for access tokens. */
  readonly tokenId: string | undefined;
  /** The access token's session (`sid`); undefined for refresh tokens. */
  readonly sessionId: string | undefined;
  /** How the session was signed in to, as the issuer was told. */
  readonly amr: readonly SignInMethod[] | undefined;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

export interface FakeTokenIssuerOptions {
  readonly accessTtlSeconds?: number;
  readonly refreshTtlSeconds?: number;
}

/**
 * A TokenIssuer without crypto: tokens are opaque random strings looked up in a table of what
 * was "signed". Expiry is judged by the given clock (expired from `expiresAt` on, like JWT `exp`).
 * `verify*` resolve `undefined` for unknown tokens, the other type, or expired tokens — never throw.
 */
export class FakeTokenIssuer implements TokenIssuer {
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  private readonly signed = new Map<string, FakeTokenEntry>();

  constructor(
    private readonly clock: Clock,
    options: FakeTokenIssuerOptions = {},
  ) {
    this.accessTokenTtlSeconds = options.accessTtlSeconds ?? 24 * 3600;
    this.refreshTokenTtlSeconds = options.refreshTtlSeconds ?? 168 * 3600;
  }

  async issueAccessToken(claims: AccessClaims): Promise<IssuedToken> {
    const ids = { sessionId: claims.sessionId, amr: claims.amr };
    return this.sign('access', claims.userId, claims.role, ids, this.accessTokenTtlSeconds);
  }

  async issueRefreshToken(claims: RefreshClaims & { readonly role: string }): Promise<IssuedToken> {
    const ids = { tokenId: claims.tokenId, amr: claims.amr };
    return this.sign('refresh', claims.userId, claims.role, ids, this.refreshTokenTtlSeconds);
  }

  async verifyAccessToken(token: string): Promise<AccessClaims | undefined> {
    await Promise.resolve();
    const entry = this.live(token, 'access');
    return entry?.sessionId !== undefined
      ? { userId: entry.userId, role: entry.role, sessionId: entry.sessionId, ...(entry.amr ? { amr: entry.amr } : {}) }
      : undefined;
  }

  async verifyRefreshToken(token: string): Promise<RefreshClaims | undefined> {
    await Promise.resolve();
    const entry = this.live(token, 'refresh');
    if (entry?.tokenId === undefined) return undefined;
    return { userId: entry.userId, tokenId: entry.tokenId, ...(entry.amr ? { amr: entry.amr } : {}) };
  }

  /** What was signed into `token`, whatever its state (for assertions); undefined if never issued. */
  inspect(token: string): FakeTokenEntry | undefined {
    return this.signed.get(token);
  }

  /** Number of tokens signed so far. */
  get issuedCount(): number {
    return this.signed.size;
  }

  private async sign(
    type: FakeTokenType,
    userId: string,
    role: string,
    ids: { tokenId?: string; sessionId?: string; amr?: readonly SignInMethod[] | undefined },
    ttlSeconds: number,
  ): Promise<IssuedToken> {
    await Promise.resolve();
    const issuedAt = this.clock.now();
    const expiresAt = new Date(issuedAt.getTime() + ttlSeconds * 1000);
    const token = `${type}.${randomBytes(12).toString('base64url')}`;
    const { tokenId, sessionId, amr } = ids;
    this.signed.set(token, { type, userId, role, tokenId, sessionId, amr, issuedAt, expiresAt });
    return { token, expiresAt };
  }

  private live(token: string, type: FakeTokenType): FakeTokenEntry | undefined {
    const entry = this.signed.get(token);
    if (!entry || entry.type !== type) return undefined;
    if (this.clock.now().getTime() >= entry.expiresAt.getTime()) return undefined;
    return entry;
  }
}
