import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AccessClaims, IssuedToken, RefreshClaims, TokenIssuer } from '../../../application/ports/TokenIssuer.js';
import { isSignInMethod, type SignInMethod } from '../../../domain/user/SignInMethod.js';

export interface JwtOptions {
  secret: string;
  issuer: string;
  accessTtlMs: number;
  refreshTtlMs: number;
}

type TokenType = 'access' | 'refresh';

interface Payload {
  sub: string;
  role: string;
  /** Access tokens: the session they were issued to. */
  sid?: string;
  /** How the session was signed in to (RFC 8176), when the issuer was told. */
  amr?: SignInMethod[];
  typ: TokenType;
  jti: string;
  iss: string;
  iat: number;
  exp: number;
}

/** The `amr` claim when there are methods to say, else nothing (tokens of callers that name none stay as they were). */
const amrOf = (amr: readonly SignInMethod[] | undefined): { amr?: SignInMethod[] } =>
  amr === undefined || amr.length === 0 ? {} : { amr: [...amr] };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * HS256 JWTs. Claims: `sub`, `role`, `iss`, `iat`, `exp`, `jti`, `typ`, `amr` (how the session was
 * signed in to, RFC 8176), and on access tokens `sid` (the session; an access token without one is
 * refused). Verification pins the
 * algorithm (so `alg: none` and every other algorithm are refused), checks the issuer and the
 * type, so an access token is never taken for a refresh token or the reverse.
 */
export class JwtTokenIssuer implements TokenIssuer {
  readonly accessTokenTtlSeconds: number;
  /**
   * The secret as a KeyObject, made once: given a string, jsonwebtoken tries `createPublicKey`
   * on it (and fails) before every single verification, work each request would pay for.
   */
  private readonly key: KeyObject;
  /**
   * Tokens already verified, with their payload: a token's signature and claims never change, so
   * only its expiry needs checking again. Bounded; cleared when full.
   */
  private readonly verified = new Map<string, Payload>();

  constructor(private readonly options: JwtOptions) {
    this.accessTokenTtlSeconds = Math.floor(options.accessTtlMs / 1000);
    this.key = createSecretKey(Buffer.from(options.secret, 'utf8'));
  }

  issueAccessToken(claims: AccessClaims): Promise<IssuedToken> {
    return this.sign(
      {
        sub: claims.userId,
        role: claims.role,
        sid: claims.sessionId,
        ...amrOf(claims.amr),
        typ: 'access',
        jti: randomUUID(),
      },
      this.options.accessTtlMs,
    );
  }

  issueRefreshToken(claims: RefreshClaims & { role: string }): Promise<IssuedToken> {
    return this.sign(
      { sub: claims.userId, role: claims.role, ...amrOf(claims.amr), typ: 'refresh', jti: claims.tokenId },
      this.options.refreshTtlMs,
    );
  }

  async verifyAccessToken(token: string): Promise<AccessClaims | undefined> {
    const payload = this.verify(token, 'access');
    if (payload?.sid === undefined) return undefined;
    return { userId: payload.sub, role: payload.role, sessionId: payload.sid, ...amrOf(payload.amr) };
  }

  async verifyRefreshToken(token: string): Promise<RefreshClaims | undefined> {
    const payload = this.verify(token, 'refresh');
    return payload ? { userId: payload.sub, tokenId: payload.jti, ...amrOf(payload.amr) } : undefined;
  }

  private async sign(
    claims: Pick<Payload, 'sub' | 'role' | 'sid' | 'amr' | 'typ' | 'jti'>,
    ttlMs: number,
  ): Promise<IssuedToken> {
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + Math.floor(ttlMs / 1000);
    const payload: Payload = { ...claims, iss: this.options.issuer, iat, exp };
    return { token: jwt.sign(payload, this.key, { algorithm: 'HS256' }), expiresAt: new Date(exp * 1000) };
  }

  private verify(token: string, type: TokenType): Payload | undefined {
    if (typeof token !== 'string' || token.length > 4096) return undefined;
    const known = this.verified.get(token);
    if (known) return known.typ === type && known.exp > Date.now() / 1000 ? known : undefined;
    const payload = this.verifySignature(token);
    if (payload) {
      if (this.verified.size >= 10_000) this.verified.clear();
      this.verified.set(token, payload);
    }
    return payload?.typ === type ? payload : undefined;
  }

  private verifySignature(token: string): Payload | undefined {
    let decoded: unknown;
    try {
      decoded = jwt.verify(token, this.key, { algorithms: ['HS256'], issuer: this.options.issuer });
    } catch {
      return undefined;
    }
    if (typeof decoded !== 'object' || decoded === null) return undefined;
    const p = decoded as Partial<Payload>;
    const valid =
      (p.typ === 'access' || p.typ === 'refresh') &&
      typeof p.sub === 'string' &&
      UUID.test(p.sub) &&
      typeof p.role === 'string' &&
      (p.sid === undefined || (typeof p.sid === 'string' && UUID.test(p.sid))) &&
      (p.amr === undefined || (Array.isArray(p.amr) && p.amr.every(isSignInMethod))) &&
      typeof p.jti === 'string' &&
      typeof p.exp === 'number' &&
      typeof p.iat === 'number';
    return valid ? (p as Payload) : undefined;
  }
}
