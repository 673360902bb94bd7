import {
  DomainError,
  NotFoundError,
  ServiceUnavailableError,
  ValidationError,
} from '../../domain/shared/DomainError.js';
import type { User } from '../../domain/user/User.js';
import { InvalidAccountTokenError } from '../../domain/user/UserErrors.js';
import type { UserRepository } from '../../domain/user/UserRepository.js';
import type { ClientInfo } from '../auth/SessionIssuer.js';
import type { SignInOutcome } from '../mfa/SignInGate.js';
import type { Clock } from '../ports/Clock.js';
import { IdentityProviderError, type IdentityProviders } from '../ports/IdentityProviders.js';
import type { OidcHandoffStore } from '../ports/OidcHandoffStore.js';
import type { OneTimeSecrets } from '../ports/OneTimeSecrets.js';
import type { SecretBox } from '../ports/SecretBox.js';
import type { OidcAccounts } from './OidcAccounts.js';

/** How long a browser may take at the provider (a `state` lives this long). */
export const OIDC_STATE_TTL_MS = 10 * 60 * 1000;

/** How long the front end has to trade its one-time `code`. */
export const OIDC_CODE_TTL_MS = 60 * 1000;

/** What BrowserSignIn is given, by name. */
export interface BrowserSignInDependencies {
  readonly providers: IdentityProviders;
  readonly accounts: OidcAccounts;
  readonly handoffs: OidcHandoffStore;
  /** Makes and checks states and one-time codes: `<selector>.<verifier>`, only the verifier's hash stored. */
  readonly secrets: OneTimeSecrets;
  /** Seals a state's nonce and PKCE verifier. */
  readonly box: SecretBox;
  readonly users: UserRepository;
  readonly clock: Clock;
  /** The front-end URLs allowed to receive a sign-in's outcome (`auth.oidc.redirect_uris`). */
  readonly redirectUris: readonly string[];
}

/** Where the provider's callback sends the browser: the front end with a one-time code, or with an error code. */
export interface CallbackOutcome {
  readonly redirectUri: string;
  readonly result: { readonly code: string } | { readonly error: string };
}

/** The secrets a state keeps sealed for the callback. */
interface StateSecrets {
  readonly nonce: string;
  readonly codeVerifier: string;
}

const stateContext = (selector: string): string => `oidc-state:${selector}`;

/**
 * The browser sign-in with a provider (authorization code, PKCE S256, state, nonce):
 * - `start` checks the provider and the front end's `redirect_uri`, stores a single-use state (10
 *   minutes: the provider, the redirect URI, the nonce and PKCE verifier sealed) and answers the
 *   provider's URL;
 * - `callback` spends the state (a bad, spent or expired one is InvalidAccountTokenError, and the
 *   provider is never asked anything), trades the provider's code for an ID token and checks it,
 *   chooses the account (OidcAccounts), and answers where to send the browser: the front end with a
 *   one-time code (60 s), or with the error's code (`UNAUTHORIZED` for a refused token, `CONFLICT`
 *   for an address that cannot be linked) — never tokens in a URL;
 * - `exchange` spends the one-time code (bad, spent or expired: InvalidAccountTokenError) and signs
 *   its account in as login does.
 */
export class BrowserSignIn {
  constructor(private readonly deps: BrowserSignInDependencies) {}

  /** The provider's authorization URL; `callbackUrl` is this service's callback of `provider`. */
  async start(input: { provider: string; redirectUri: string | undefined; callbackUrl: string }): Promise<string> {
    const { providers, secrets, handoffs, box, clock, redirectUris } = this.deps;
    if (!providers.has(input.provider)) throw new NotFoundError('Identity provider', input.provider);
    const redirectUri = input.redirectUri;
    if (redirectUri === undefined || !redirectUris.includes(redirectUri)) {
      const message = redirectUri === undefined ? 'is required' : 'is not one of the allowed redirect URIs';
      throw new ValidationError([{ field: 'redirect_uri', message }]);
    }
    const state = secrets.create();
    let request;
    try {
      request = await providers.begin(input.provider, input.callbackUrl, state.token);
    } catch (error) {
      if (error instanceof IdentityProviderError)
        throw new ServiceUnavailableError('the identity provider cannot be reached');
      throw error;
    }
    const now = clock.now();
    const sealed: StateSecrets = { nonce: request.nonce, codeVerifier: request.codeVerifier };
    await handoffs.addState({
      selector: state.selector,
      verifierHash: state.verifierHash,
      provider: input.provider,
      redirectUri,
      sealed: box.seal(JSON.stringify(sealed), stateContext(state.selector)),
      createdAt: now,
      expiresAt: new Date(now.getTime() + OIDC_STATE_TTL_MS),
    });
    return request.url;
  }

  /**
   * The provider's return (an unknown provider is NotFoundError): `state` as it came back, `callbackUrl` the whole URL the provider sent
   * the browser to (as the provider was told it, with the query it added).
   */
  async callback(input: {
    provider: string;
    state: string | undefined;
    callbackUrl: string;
  }): Promise<CallbackOutcome> {
    const { providers, secrets, handoffs, box, clock } = this.deps;
    if (!providers.has(input.provider)) throw new NotFoundError('Identity provider', input.provider);
    const parsed = input.state === undefined ? undefined : secrets.parse(input.state);
    if (!parsed) throw new InvalidAccountTokenError();
    const now = clock.now();
    const state = await handoffs.findState(parsed.selector, now);
    if (!state || state.provider !== input.provider || !secrets.matches(parsed.verifier, state.verifierHash)) {
      throw new InvalidAccountTokenError();
    }
    if (!(await handoffs.spendState(state.selector, now))) throw new InvalidAccountTokenError();
    const opened = box.open(state.sealed, stateContext(state.selector));
    if (opened === undefined) throw new InvalidAccountTokenError();
    const expected = JSON.parse(opened) as StateSecrets;
    try {
      const claims = await this.deps.providers.finish(input.provider, input.callbackUrl, {
        state: input.state!,
        ...expected,
      });
      const user = await this.deps.accounts.accountFor(claims);
      return { redirectUri: state.redirectUri, result: { code: await this.codeFor(user) } };
    } catch (error) {
      if (error instanceof IdentityProviderError)
        return { redirectUri: state.redirectUri, result: { error: 'UNAUTHORIZED' } };
      if (error instanceof DomainError) return { redirectUri: state.redirectUri, result: { error: error.code } };
      throw error;
    }
  }

  /** Trades a one-time code for the sign-in: the user, and a session or a second-factor challenge. */
  async exchange(input: { code: string; client: ClientInfo }): Promise<{ user: User; outcome: SignInOutcome }> {
    const { secrets, handoffs, clock, users } = this.deps;
    const parsed = secrets.parse(input.code);
    if (!parsed) throw new InvalidAccountTokenError();
    const now = clock.now();
    const code = await handoffs.findCode(parsed.selector, now);
    if (!code || !secrets.matches(parsed.verifier, code.verifierHash)) throw new InvalidAccountTokenError();
    if (!(await handoffs.spendCode(code.selector, now))) throw new InvalidAccountTokenError();
    const user = await users.findById(code.userId);
    if (!user) throw new InvalidAccountTokenError();
    return { user, outcome: await this.deps.accounts.enter(user, input.client) };
  }

  private async codeFor(user: User): Promise<string> {
    const now = this.deps.clock.now();
    const code = this.deps.secrets.create();
    await this.deps.handoffs.addCode({
      selector: code.selector,
      verifierHash: code.verifierHash,
      userId: user.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + OIDC_CODE_TTL_MS),
    });
    return code.token;
  }
}
