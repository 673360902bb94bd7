import type Router from '@koa/router';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { BrowserSignIn } from '../../../../application/oidc/BrowserSignIn.js';
import type { LinkedIdentities } from '../../../../application/oidc/LinkedIdentities.js';
import type { NativeSignIn } from '../../../../application/oidc/NativeSignIn.js';
import type { Identity } from '../../../../application/ports/IdentityStore.js';
import type { SignInOutcome } from '../../../../application/mfa/SignInGate.js';
import type { User } from '../../../../domain/user/User.js';
import { IdTokenBody, OidcExchangeBody } from '../../codecs/oidcCodecs.js';
import { arrayOf, closedObject, WIRE, type JsonSchema } from '../../codecs/jsonSchema.js';
import { success } from '../envelope.js';
import { noContent, ok, operation, RestRoutes } from '../operations.js';
import { presentUser, SESSION_SCHEMA } from '../presenters.js';
import type { RequestState } from '../state.js';
import { MFA_REQUIRED_SCHEMA, presentSignIn } from './mfa.js';

export interface OidcUseCases {
  authenticate: Authenticate;
  browser: BrowserSignIn;
  native: NativeSignIn;
  identities: LinkedIdentities;
  /** The service's public origin (`server.public_url`); empty: each request's own origin. */
  publicUrl: string;
}

const authTag = {
  name: 'auth',
  description: 'Registration, login and the refresh-token session (docs/authentication.md)',
};
const profileTag = { name: 'profile', description: "The caller's own account (a token is all it needs)" };

const PROVIDER = { provider: 'The identity provider’s name, as configured (`auth.oidc.providers`)' };

export const IDENTITY_SCHEMA: JsonSchema = {
  title: 'LinkedIdentity',
  ...closedObject({
    id: WIRE.uuid,
    issuer: WIRE.text('The provider’s issuer'),
    subject: WIRE.text('The person’s id at the provider'),
    email: { type: ['string', 'null'], description: 'The address the provider gave when the identity was linked' },
    created_at: WIRE.dateTime,
  }),
};

const SIGN_IN_ANSWER = ok(200, 'The user and a new token pair, or (a second factor on) what finishes the sign-in', {
  oneOf: [SESSION_SCHEMA, MFA_REQUIRED_SCHEMA],
});

const SIGN_IN_FAILURES = {
  403: 'With `auth.require_verified_email` on, the address is not verified yet (EMAIL_NOT_VERIFIED); a new link is mailed',
  409: 'An account has the address and cannot be linked: the provider or the account has it unverified (CONFLICT)',
} as const;

/** The sign-in with an identity provider and the caller's linked identities: the router and the API document both read them. */
export const OIDC_OPERATIONS = {
  startOidc: operation({
    id: 'startOidcSignIn',
    method: 'GET',
    path: '/api/v1/auth/oidc/:provider/start',
    pathNames: PROVIDER,
    queryParams: [
      {
        name: 'redirect_uri',
        description: 'Where the front end receives the outcome: one of `auth.oidc.redirect_uris`, exactly',
        required: true,
      },
    ],
    tag: authTag,
    summary: 'Start signing in with an identity provider',
    description:
      'Sends the browser to the provider (authorization code with PKCE S256, a single-use `state` valid 10 minutes, a `nonce`). ' +
      'The provider sends it back to the callback, which sends it on to `redirect_uri`.',
    access: 'public',
    answers: [{ status: 302, description: 'To the provider’s sign-in page', redirect: 'identity-provider' }],
    failures: {
      400: '`redirect_uri` is missing or not one of the allowed ones (VALIDATION_ERROR)',
      404: 'No provider has this name',
      503: 'The provider cannot be reached',
    },
  }),
  oidcCallback: operation({
    id: 'oidcCallback',
    method: 'GET',
    path: '/api/v1/auth/oidc/:provider/callback',
    pathNames: PROVIDER,
    queryParams: [
      { name: 'state', description: 'The state the sign-in started with, as the provider returns it', required: true },
      { name: 'code', description: 'The provider’s authorization code', required: false },
      { name: 'error', description: 'The provider’s refusal, in place of a code', required: false },
    ],
    tag: authTag,
    summary: 'Where the provider sends the browser back',
    description:
      'Spends the state, trades the provider’s code for an ID token and checks it (signature, issuer, audience, expiry, nonce), ' +
      'chooses the account (docs/authentication.md), and sends the browser to the `redirect_uri` with a one-time `code` (60 s) — ' +
      'or with `error` (`UNAUTHORIZED`: the provider refused or its token did not verify; `CONFLICT`: an account has the address ' +
      'and cannot be linked). Never tokens in a URL.',
    access: 'public',
    answers: [{ status: 302, description: 'To the front end, with `code` or `error`', redirect: 'front-end' }],
    failures: {
      400: 'The state is missing, unknown, spent or expired (INVALID_TOKEN): the provider is not asked anything',
      404: 'No provider has this name',
    },
  }),
  exchangeOidc: operation({
    id: 'exchangeOidcCode',
    method: 'POST',
    path: '/api/v1/auth/oidc/exchange',
    tag: authTag,
    summary: 'Trade a sign-in’s one-time code for tokens',
    description:
      'The front end trades the `code` it was sent back with for what login answers: the user and a token pair (a session signed in ' +
      'by `fed`), or, with a second factor on, `mfa_required`.',
    access: 'public',
    body: OidcExchangeBody,
    answers: [SIGN_IN_ANSWER],
    failures: { 400: 'The code is malformed, unknown, spent or expired (INVALID_TOKEN)', 403: SIGN_IN_FAILURES[403] },
  }),
  oidcIdToken: operation({
    id: 'signInWithIdToken',
    method: 'POST',
    path: '/api/v1/auth/oidc/:provider/token',
    pathNames: PROVIDER,
    tag: authTag,
    summary: 'Sign in with an ID token (native clients)',
    description:
      'A native client that signed in at the provider itself sends the ID token (and the nonce it used): it is checked as the ' +
      'browser flow’s is (signature, issuer, audience, expiry, nonce when given), the account chosen the same way, and the ' +
      'answer is login’s.',
    access: 'public',
    body: IdTokenBody,
    answers: [SIGN_IN_ANSWER],
    failures: {
      401: 'The ID token does not verify, or its nonce is not the one given',
      404: 'No provider has this name',
      ...SIGN_IN_FAILURES,
    },
  }),
  listIdentities: operation({
    id: 'listIdentities',
    method: 'GET',
    path: '/api/v1/profile/identities',
    tag: profileTag,
    summary: 'List linked identities',
    description: 'The identities at providers linked to the caller’s account, oldest first.',
    access: 'token',
    answers: [ok(200, 'The linked identities', arrayOf(IDENTITY_SCHEMA))],
  }),
  unlinkIdentity: operation({
    id: 'unlinkIdentity',
    method: 'DELETE',
    path: '/api/v1/profile/identities/:id',
    tag: profileTag,
    summary: 'Unlink an identity',
    description:
      'The identity no longer signs in to the account. Refused when it is the last way in (no password and no other identity).',
    access: 'token',
    answers: [noContent('The identity is unlinked')],
    failures: {
      404: 'The caller has no identity with this id',
      409: 'It is the account’s only way to sign in (no password, no other identity, no passkey): set a password (a password reset) or add another way first',
    },
  }),
};

export function presentIdentity(identity: Identity): Record<string, string | null> {
  return {
    id: identity.id,
    issuer: identity.issuer,
    subject: identity.subject,
    email: identity.email,
    created_at: identity.createdAt.toISOString(),
  };
}

/** What a sign-in answers: login's. */
function signInBody(user: User, outcome: SignInOutcome): Record<string, unknown> {
  return outcome.kind === 'session' ? { user: presentUser(user), ...presentSignIn(outcome) } : presentSignIn(outcome);
}

/** `redirect_uri` with the outcome in its query (any query it had kept). */
function frontEndUrl(redirectUri: string, result: { code: string } | { error: string }): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(result)) url.searchParams.set(name, value as string);
  return url.href;
}

/** A 302 to `url`, without a body (the document describes none). */
function redirect(ctx: { status: number; body: unknown; set(name: string, value: string): void }, url: string): void {
  ctx.status = 302;
  ctx.set('Location', url);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = '';
}

/** `/api/v1/auth/oidc/*` (public) and `/api/v1/profile/identities*` (token). */
export function oidcRoutes(useCases: OidcUseCases): (router: Router<RequestState>) => void {
  const ops = OIDC_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);
    const clientOf = (ctx: { ip: string; get(name: string): string }) => {
      const userAgent = ctx.get('User-Agent');
      return { ip: ctx.ip, userAgent: userAgent === '' ? null : userAgent };
    };
    const callbackOf = (ctx: { origin: string }, provider: string): string =>
      `${useCases.publicUrl || ctx.origin}/api/v1/auth/oidc/${encodeURIComponent(provider)}/callback`;
    const queryText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

    api.on(ops.startOidc, async (ctx) => {
      const provider = ctx.params.provider!;
      const url = await useCases.browser.start({
        provider,
        redirectUri: queryText(ctx.query.redirect_uri),
        callbackUrl: callbackOf(ctx, provider),
      });
      redirect(ctx, url);
    });

    api.on(ops.oidcCallback, async (ctx) => {
      const provider = ctx.params.provider!;
      const { redirectUri, result } = await useCases.browser.callback({
        provider,
        state: queryText(ctx.query.state),
        callbackUrl: `${callbackOf(ctx, provider)}${ctx.querystring === '' ? '' : `?${ctx.querystring}`}`,
      });
      // The front end's page must not pass the one-time code on in a Referer.
      ctx.set('Referrer-Policy', 'no-referrer');
      redirect(ctx, frontEndUrl(redirectUri, result));
    });

    api.on(ops.exchangeOidc, async (ctx, { body }) => {
      const { user, outcome } = await useCases.browser.exchange({ code: body.code, client: clientOf(ctx) });
      ctx.body = success(signInBody(user, outcome));
    });

    api.on(ops.oidcIdToken, async (ctx, { body }) => {
      const { user, outcome } = await useCases.native.execute({
        provider: ctx.params.provider!,
        idToken: body.id_token,
        ...(body.nonce !== undefined && body.nonce !== null ? { nonce: body.nonce } : {}),
        client: clientOf(ctx),
      });
      ctx.body = success(signInBody(user, outcome));
    });

    api.on(ops.listIdentities, async (ctx) => {
      const identities = await useCases.identities.list(ctx.state.principal!.userId);
      ctx.body = success(identities.map(presentIdentity));
    });

    api.on(ops.unlinkIdentity, async (ctx) => {
      await useCases.identities.unlink(ctx.state.principal!.userId, ctx.params.id!);
      ctx.status = 204;
    });
  };
}
