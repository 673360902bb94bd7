import { UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { CallerLookup } from '../ports/CallerLookup.js';
import type { Clock } from '../ports/Clock.js';
import type { AccessClaims, TokenIssuer } from '../ports/TokenIssuer.js';

/**
 * Turns a bearer access token into the caller's identity. A token is accepted until it expires,
 * as long as its user still exists and its session has not ended (docs/authentication.md): one
 * lookup answers both. The role is the user's current one, read by that same lookup, not the one
 * the token was issued with: a demotion takes effect on tokens already issued.
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
    const user = await this.callers.find(claims.userId, claims.sessionId, this.clock.now());
    if (!user) throw new UnauthorizedError('invalid token');
    return user.role === claims.role ? claims : { ...claims, role: user.role };
  }
}
