import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import * as client from 'openid-client';
import {
  IdentityProviderError,
  type AuthorizationRequest,
  type IdentityProviders,
  type ProviderClaims,
} from '../../../application/ports/IdentityProviders.js';

/** One configured provider (`auth.oidc.providers.<name>`). */
export interface OidcProviderSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated, `openid` among them. */
  readonly scopes: string;
}

/** A provider's discovered configuration and the keys its ID tokens are signed with. */
interface Discovered {
  readonly config: client.Configuration;
  readonly keys: ReturnType<typeof createRemoteJWKSet>;
}

/** The claims of a checked ID token, as the port answers them. */
function claimsOf(payload: JWTPayload): ProviderClaims {
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  if (typeof payload.iss !== 'string' || typeof payload.sub !== 'string' || payload.sub === '') {
    throw new IdentityProviderError('the ID token names no issuer or subject');
  }
  const email = text(payload.email);
  const givenName = text(payload.given_name);
  const familyName = text(payload.family_name);
  return {
    issuer: payload.iss,
    subject: payload.sub,
    ...(email !== undefined ? { email } : {}),
    emailVerified: payload.email_verified === true,
    ...(givenName !== undefined ? { givenName } : {}),
    ...(familyName !== undefined ? { familyName } : {}),
  };
}

/**
 * The configured OpenID Connect providers through `openid-client` (discovery from each issuer, the
 * authorization code flow with PKCE S256, state and nonce, and its ID-token checks) and `jose` for
 * the ID tokens native clients bring (signature by the keys the provider publishes, issuer,
 * audience, expiry). A provider is discovered on first use and remembered; a failed discovery is
 * tried again at the next use. An `http://` issuer (a provider on this machine, in development and
 * tests) is allowed; configuration refuses one in production.
 */
export class OpenIdClientProviders implements IdentityProviders {
  private readonly discovered = new Map<string, Promise<Discovered>>();

  constructor(private readonly providers: ReadonlyMap<string, OidcProviderSettings>) {}

  has(name: string): boolean {
    return this.providers.has(name);
  }

  async begin(name: string, callbackUrl: string, state: string): Promise<AuthorizationRequest> {
    const { config } = await this.discover(name);
    const codeVerifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl,
      scope: this.settings(name).scopes,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, nonce, codeVerifier };
  }

  async finish(
    name: string,
    callbackUrl: string,
    expected: { readonly state: string; readonly nonce: string; readonly codeVerifier: string },
  ): Promise<ProviderClaims> {
    const { config } = await this.discover(name);
    try {
      const tokens = await client.authorizationCodeGrant(config, new URL(callbackUrl), {
        pkceCodeVerifier: expected.codeVerifier,
        expectedNonce: expected.nonce,
        expectedState: expected.state,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new IdentityProviderError('the provider answered no ID token');
      return claimsOf(claims as JWTPayload);
    } catch (error) {
      throw error instanceof IdentityProviderError ? error : new IdentityProviderError(reason(error));
    }
  }

  async verify(name: string, idToken: string, nonce?: string): Promise<ProviderClaims> {
    const { config, keys } = await this.discover(name);
    const metadata = config.serverMetadata();
    try {
      const { payload } = await jwtVerify(idToken, keys, {
        issuer: metadata.issuer,
        audience: this.settings(name).clientId,
        // Only signatures by the published keys: never `none`, never a secret-keyed HMAC.
        algorithms: (metadata.id_token_signing_alg_values_supported ?? ['RS256']).filter(
          (alg) => alg !== 'none' && !alg.startsWith('HS'),
        ),
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'],
      });
      if (nonce !== undefined && payload.nonce !== nonce) throw new IdentityProviderError('the nonce does not match');
      return claimsOf(payload);
    } catch (error) {
      throw error instanceof IdentityProviderError ? error : new IdentityProviderError(reason(error));
    }
  }

  private settings(name: string): OidcProviderSettings {
    const settings = this.providers.get(name);
    if (!settings) throw new IdentityProviderError(`no provider named ${name}`);
    return settings;
  }

  private discover(name: string): Promise<Discovered> {
    let found = this.discovered.get(name);
    if (!found) {
      found = this.discoverNow(this.settings(name));
      this.discovered.set(name, found);
      found.catch(() => this.discovered.delete(name));
    }
    return found;
  }

  private async discoverNow(settings: OidcProviderSettings): Promise<Discovered> {
    const issuer = new URL(settings.issuer);
    const insecure = issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined;
    try {
      const config = await client.discovery(
        issuer,
        settings.clientId,
        settings.clientSecret,
        client.ClientSecretPost(settings.clientSecret),
        insecure,
      );
      const jwksUri = config.serverMetadata().jwks_uri;
      if (!jwksUri) throw new IdentityProviderError('the provider publishes no jwks_uri');
      return { config, keys: createRemoteJWKSet(new URL(jwksUri)) };
    } catch (error) {
      throw error instanceof IdentityProviderError ? error : new IdentityProviderError(reason(error));
    }
  }
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));
