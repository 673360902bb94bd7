import type { SignInMethod } from '../../domain/user/SignInMethod.js';

/** Who a verified access token speaks for. */
export interface AccessClaims {
  readonly userId: string;
  readonly role: string;
  /** The session the token was issued to (`sid`): ending the session refuses the token (docs/authentication.md). */
  readonly sessionId: string;
  /** How the session was signed in to (`amr`, RFC 8176); absent on tokens issued before it was recorded. */
  readonly amr?: readonly SignInMethod[];
}

/** What a verified refresh token names: its user and its own id (to look up its family). */
export interface RefreshClaims {
  readonly userId: string;
  readonly tokenId: string;
  /** How the session was signed in to, carried so that refreshed access tokens say it too. */
  readonly amr?: readonly SignInMethod[];
}

export interface IssuedToken {
  readonly token: string;
  readonly expiresAt: Date;
}

/**
 * Signs and verifies tokens. Promises: access and refresh tokens are never interchangeable;
 * `verify*` resolve `undefined` for anything not issued by this issuer, expired, of the other
 * type, or signed with another key or algorithm — never throw for bad input.
 */
export interface TokenIssuer {
  /** Lifetime of access tokens, in seconds (the `expires_in` of token answers). */
  readonly accessTokenTtlSeconds: number;
  issueAccessToken(claims: AccessClaims): Promise<IssuedToken>;
  issueRefreshToken(claims: RefreshClaims & { readonly role: string }): Promise<IssuedToken>;
  verifyAccessToken(token: string): Promise<AccessClaims | undefined>;
  verifyRefreshToken(token: string): Promise<RefreshClaims | undefined>;
}
