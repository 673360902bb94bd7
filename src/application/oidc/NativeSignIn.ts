import { NotFoundError, UnauthorizedError } from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import type { ClientInfo } from '../auth/SessionIssuer.js';
import type { SignInOutcome } from '../mfa/SignInGate.js';
import { IdentityProviderError, type IdentityProviders } from '../ports/IdentityProviders.js';
import type { OidcAccounts } from './OidcAccounts.js';

/**
 * A native client's sign-in with an ID token it got from a provider itself: the token is checked
 * as the browser flow's is (signature, issuer, audience, expiry, and the nonce when the client
 * gives one) — a refused one is UnauthorizedError — then the account is chosen (OidcAccounts) and
 * signed in as login does.
 */
export class NativeSignIn {
  constructor(private readonly deps: { readonly providers: IdentityProviders; readonly accounts: OidcAccounts }) {}

  async execute(input: {
    provider: string;
    idToken: string;
    nonce?: string;
    client: ClientInfo;
  }): Promise<{ user: User; outcome: SignInOutcome }> {
    const { providers, accounts } = this.deps;
    if (!providers.has(input.provider)) throw new NotFoundError('Identity provider', input.provider);
    let claims;
    try {
      claims = await providers.verify(input.provider, input.idToken, input.nonce);
    } catch (error) {
      if (error instanceof IdentityProviderError) throw new UnauthorizedError('the ID token was refused');
      throw error;
    }
    const user = await accounts.accountFor(claims);
    return { user, outcome: await accounts.enter(user, input.client) };
  }
}
