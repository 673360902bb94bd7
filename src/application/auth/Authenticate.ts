import { UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { AccessClaims, TokenIssuer } from '../ports/TokenIssuer.js';

/**
 * Turns a bearer access token into the caller's identity. Tokens are stateless and accepted
 * until they expire, as long as their user still exists. The role is the one the token carries.
 */
export class Authenticate {
  constructor(
    private readonly tokens: TokenIssuer,
    private readonly users: UserRepository,
  ) {}

  async execute(input: { readonly accessToken: string }): Promise<AccessClaims> {
    const claims = await this.tokens.verifyAccessToken(input.accessToken);
    if (!claims) throw new UnauthorizedError('invalid token');
    if (!(await this.users.findById(claims.userId))) throw new UnauthorizedError('invalid token');
    return claims;
  }
}
