import { UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { CallerLookup } from '../ports/CallerLookup.js';
import type { Clock } from '../ports/Clock.js';
import type { AccessClaims, TokenIssuer } from '../ports/TokenIssuer.js';

/**
 * Turns a bearer access token into the caller's identity. A token is accepted until it expires,
 * as long as its user still exists and its session has not ended (CONTRACT §4, §17): one lookup
 * answers both. The role is the one the token carries.
 */
export class Authenticate {
  constructor(
    private readonly tokens: TokenIssuer,
    private readonly callers: CallerLookup,
    private readonly clock: Clock,
  ) {}

  async execute(input: { readonly accessToken: string }): Promise<AccessClaims> {
    const claims = await this.tokens.verifyAccessToken(input.accessToken);
    if (!claims) throw new UnauthorizedError('invalid token');
    if (!(await this.callers.find(claims.userId, claims.sessionId, this.clock.now())))
      throw new UnauthorizedError('invalid token');
    return claims;
  }
}
