/** What a provider's verified ID token says of the person. */
export interface ProviderClaims {
  readonly issuer: string;
  readonly subject: string;
  /** The address, as the provider gave it (not normalized), when it gave one. */
  readonly email?: string;
  /** `email_verified: true` — anything else (absent, false, a string) is false. */
  readonly emailVerified: boolean;
  readonly givenName?: string;
  readonly familyName?: string;
}

/** What a browser sign-in at a provider begins with: the provider's URL, and the secrets to keep for its end. */
export interface AuthorizationRequest {
  readonly url: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** Why a provider's answer was refused. */
export class IdentityProviderError extends Error {}

/**
 * The configured OpenID Connect providers, by name (`auth.oidc.providers`). Promises: every claim
 * answered comes from an ID token whose signature (by the provider's published keys), issuer,
 * audience (this service's client id), expiry and — when given — nonce were checked; anything that
 * fails is an IdentityProviderError (never another error for a provider's bad answer). `finish`
 * calls the provider's token endpoint; nothing else here sends it a code.
 */
export interface IdentityProviders {
  /** Whether `name` is a configured provider. */
  has(name: string): boolean;
  /** The URL to send the browser to (code flow, PKCE S256, `state`, a new nonce), returning to `callbackUrl`. */
  begin(name: string, callbackUrl: string, state: string): Promise<AuthorizationRequest>;
  /**
   * Trades the authorization code of `callbackUrl` (the whole URL the provider sent the browser
   * to) for an ID token, checked against `expected`.
   */
  finish(
    name: string,
    callbackUrl: string,
    expected: { readonly state: string; readonly nonce: string; readonly codeVerifier: string },
  ): Promise<ProviderClaims>;
  /** Checks an ID token a native client holds (its nonce too when `nonce` is given). */
  verify(name: string, idToken: string, nonce?: string): Promise<ProviderClaims>;
}
