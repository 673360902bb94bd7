import { UnauthorizedError } from '../../domain/shared/DomainError.js';
import { MfaEnrollmentRequiredError } from '../../domain/user/UserErrors.js';
import type { CallerLookup } from '../ports/CallerLookup.js';
import type { Clock } from '../ports/Clock.js';
import type { AccessClaims, TokenIssuer } from '../ports/TokenIssuer.js';

export interface AuthenticateInput {
  readonly accessToken: string;
  /**
   * The request is one of the second factor's enrolment routes, open to a caller who must enrol
   * one first (`auth.mfa.required_roles`); every other request of such a caller is refused.
   */
  readonly enrolling?: boolean;
}

/**
 * Turns a bearer access token into the caller's identity. A token is accepted until it expires,
 * as long as its user still exists and its session has not ended (docs/authentication.md): one
 * lookup answers both. The role is the user's current one, read by that same lookup, not the one
 * the token was issued with: a demotion takes effect on tokens already issued. That lookup also
 * says whether the user has a second factor (TOTP, or a passkey), so a caller whose role requires one
 * (`requiredRoles`) and who has none reaches only enrolment — at no extra read.
 *
 * @throws UnauthorizedError for a token that is not a live one of an existing user.
 * @throws MfaEnrollmentRequiredError for a caller who must enrol a second factor, outside enrolment.
 */
export class Authenticate {
  private readonly requiredRoles: ReadonlySet<string>;

  constructor(
    private readonly tokens: TokenIssuer,
    private readonly callers: CallerLookup,
    private readonly clock: Clock,
    /** The roles that need a second factor (`auth.mfa.required_roles`). */
    requiredRoles: readonly string[] = [],
  ) {
    this.requiredRoles = new Set(requiredRoles);
  }

  async execute(input: AuthenticateInput): Promise<AccessClaims> {
    const claims = await this.tokens.verifyAccessToken(input.accessToken);
    if (!claims) throw new UnauthorizedError('invalid token');
    const user = await this.callers.find(claims.userId, claims.sessionId, this.clock.now());
    if (!user) throw new UnauthorizedError('invalid token');
    if (!input.enrolling && !(user.mfaEnabled || user.hasPasskey) && this.requiredRoles.has(user.role)) {
      throw new MfaEnrollmentRequiredError();
    }
    return user.role === claims.role ? claims : { ...claims, role: user.role };
  }
}
