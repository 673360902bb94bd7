import type Router from '@koa/router';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { ListPasskeys } from '../../../../application/passkeys/ListPasskeys.js';
import type { RegisterPasskey } from '../../../../application/passkeys/RegisterPasskey.js';
import type { RemovePasskey } from '../../../../application/passkeys/RemovePasskey.js';
import type { SignInWithPasskey } from '../../../../application/passkeys/SignInWithPasskey.js';
import type { StartPasskeyRegistration } from '../../../../application/passkeys/StartPasskeyRegistration.js';
import type { StartPasskeySignIn } from '../../../../application/passkeys/StartPasskeySignIn.js';
import type { Passkey } from '../../../../application/ports/PasskeyStore.js';
import { PasskeyNotFoundError } from '../../../../domain/user/UserErrors.js';
import { PasskeyRegistrationBody, PasskeySignInBody } from '../../codecs/passkeyCodecs.js';
import { arrayOf, closedObject, nullableSchema, WIRE, type JsonSchema } from '../../codecs/jsonSchema.js';
import { idOf } from '../../ids.js';
import { success } from '../envelope.js';
import { noContent, ok, operation, RestRoutes } from '../operations.js';
import { presentUser, SESSION_SCHEMA } from '../presenters.js';
import type { RequestState } from '../state.js';
import { MFA_REQUIRED_SCHEMA, presentSignIn } from './mfa.js';

export interface PasskeyUseCases {
  authenticate: Authenticate;
  startRegistration: StartPasskeyRegistration;
  register: RegisterPasskey;
  list: ListPasskeys;
  remove: RemovePasskey;
  startSignIn: StartPasskeySignIn;
  signIn: SignInWithPasskey;
}

/** A passkey on the wire: never its key. */
export const PASSKEY_SCHEMA: JsonSchema = {
  title: 'Passkey',
  ...closedObject({
    id: WIRE.uuid,
    name: WIRE.text('A name for people, given at registration (`Passkey <n>` when none was)'),
    device_type: {
      type: 'string',
      enum: ['singleDevice', 'multiDevice'],
      description: '`multiDevice`: a passkey that may be synced to the user’s other devices',
    },
    backed_up: { type: 'boolean', description: 'Whether the passkey is backed up (synced) now' },
    created_at: WIRE.dateTime,
    last_used_at: { ...nullableSchema(WIRE.dateTime), description: 'Its last sign-in; null before the first' },
  }),
};

const CREATION_OPTIONS_SCHEMA: JsonSchema = {
  title: 'PasskeyCreationOptions',
  type: 'object',
  description:
    'WebAuthn `PublicKeyCredentialCreationOptionsJSON`: give it to `startRegistration({ optionsJSON })` of ' +
    '`@simplewebauthn/browser` (or `PublicKeyCredential.parseCreationOptionsFromJSON`). Its challenge is single use, ' +
    'for 5 minutes.',
  properties: {
    rp: {
      type: 'object',
      description: 'The relying party: `auth.webauthn.rp_id` and `auth.webauthn.rp_name`',
      required: ['id', 'name'],
      properties: { id: { type: 'string', examples: ['localhost'] }, name: { type: 'string', examples: ['Portico'] } },
      additionalProperties: true,
    },
    user: {
      type: 'object',
      description: 'The account the passkey is for: a random user handle (base64url), its e-mail and its name',
      required: ['id', 'name', 'displayName'],
      properties: {
        id: { type: 'string', examples: ['MDhlZTRmYzYtOGY3Ni00YjI3'] },
        name: { type: 'string', examples: ['ada@example.com'] },
        displayName: { type: 'string', examples: ['Ada Lovelace'] },
      },
      additionalProperties: true,
    },
    challenge: { type: 'string', description: 'base64url; single use, for 5 minutes', examples: ['dGkwOVZ4c2Q'] },
    pubKeyCredParams: {
      type: 'array',
      description: 'The signature algorithms accepted (COSE ids)',
      items: {
        type: 'object',
        required: ['type', 'alg'],
        properties: { type: { const: 'public-key' }, alg: { type: 'integer', examples: [-7] } },
        additionalProperties: true,
      },
    },
  },
  required: ['rp', 'user', 'challenge', 'pubKeyCredParams'],
  additionalProperties: true,
};

const REQUEST_OPTIONS_SCHEMA: JsonSchema = {
  title: 'PasskeyRequestOptions',
  type: 'object',
  description:
    'WebAuthn `PublicKeyCredentialRequestOptionsJSON` with no `allowCredentials` (discoverable passkeys): give it to ' +
    '`startAuthentication({ optionsJSON })` of `@simplewebauthn/browser`. Its challenge is single use, for 5 minutes.',
  properties: {
    challenge: { type: 'string', description: 'base64url; single use, for 5 minutes', examples: ['RUt5V1hjZGQ'] },
    rpId: { type: 'string', description: '`auth.webauthn.rp_id`', examples: ['localhost'] },
  },
  required: ['challenge', 'rpId'],
  additionalProperties: true,
};

const profileTag = { name: 'profile', description: "The caller's own account (a token is all it needs)" };
const authTag = {
  name: 'auth',
  description: 'Registration, login and the refresh-token session (docs/authentication.md)',
};

const CHALLENGE_REFUSED =
  'The challenge the credential answers is unknown, spent or expired, or was made for another ceremony (INVALID_TOKEN)';

/** The passkey operations: the router and the API document both read them. */
export const PASSKEY_OPERATIONS = {
  startPasskeyRegistration: operation({
    id: 'startPasskeyRegistration',
    method: 'POST',
    path: '/api/v1/profile/passkeys/options',
    tag: profileTag,
    summary: 'Start registering a passkey',
    description:
      'The options of `navigator.credentials.create`: a discoverable credential (`residentKey: required`), user ' +
      'verification as `auth.webauthn.require_user_verification` says, the caller’s passkeys excluded.',
    access: 'token',
    enrolment: true,
    answers: [ok(200, 'The registration options', CREATION_OPTIONS_SCHEMA)],
  }),
  registerPasskey: operation({
    id: 'registerPasskey',
    method: 'POST',
    path: '/api/v1/profile/passkeys',
    tag: profileTag,
    summary: 'Register a passkey',
    description:
      'The body is what `startRegistration` returned (optionally with a `name`): its challenge is spent, its ' +
      'attestation verified (origin among `auth.webauthn.origins`, RP id `auth.webauthn.rp_id`) and the passkey ' +
      'stored. From then on it signs in (POST /api/v1/auth/passkey) and counts as a second factor.',
    access: 'token',
    enrolment: true,
    body: PasskeyRegistrationBody,
    answers: [ok(201, 'The passkey', PASSKEY_SCHEMA)],
    failures: {
      400:
        `${CHALLENGE_REFUSED}; or a field breaks its rule, or the credential does not verify — another origin or ` +
        'RP id, or no user verification where it is required (VALIDATION_ERROR on `response`)',
      409: 'This passkey is registered already',
    },
  }),
  listPasskeys: operation({
    id: 'listPasskeys',
    method: 'GET',
    path: '/api/v1/profile/passkeys',
    tag: profileTag,
    summary: 'List my passkeys',
    description: 'Oldest first; never a key.',
    access: 'token',
    enrolment: true,
    answers: [ok(200, 'The caller’s passkeys', arrayOf(PASSKEY_SCHEMA))],
  }),
  removePasskey: operation({
    id: 'removePasskey',
    method: 'DELETE',
    path: '/api/v1/profile/passkeys/:id',
    tag: profileTag,
    summary: 'Remove one of my passkeys',
    description: 'It signs in no more; sessions it started stay until they end.',
    access: 'token',
    enrolment: true,
    answers: [noContent('The passkey is removed')],
    failures: {
      404: 'The caller has no passkey of this id',
      409: 'It is the account’s only way to sign in (no password, no linked identity): set a password (a password reset) first',
    },
  }),
  startPasskeySignIn: operation({
    id: 'startPasskeySignIn',
    method: 'POST',
    path: '/api/v1/auth/passkey/options',
    tag: authTag,
    summary: 'Start a passkey sign-in',
    description: 'The options of `navigator.credentials.get`, for any of the user’s discoverable passkeys.',
    access: 'public',
    answers: [ok(200, 'The sign-in options', REQUEST_OPTIONS_SCHEMA)],
  }),
  signInWithPasskey: operation({
    id: 'signInWithPasskey',
    method: 'POST',
    path: '/api/v1/auth/passkey',
    tag: authTag,
    summary: 'Sign in with a passkey',
    description:
      'The body is what `startAuthentication` returned. Its challenge is spent (one attempt each), the signature ' +
      'verified (origin, RP id), the signature counter checked and kept. With user verification it is a sign-in ' +
      'with two factors: the user and a token pair (`amr` `hwk`), no TOTP step. Only when ' +
      '`auth.webauthn.require_user_verification` is off, an assertion without it is one factor: a user with TOTP ' +
      'on then gets `mfa_required`, as login does.',
    access: 'public',
    body: PasskeySignInBody,
    answers: [
      ok(200, 'The user and a new token pair (or, rarely, what finishes the sign-in)', {
        oneOf: [SESSION_SCHEMA, MFA_REQUIRED_SCHEMA],
      }),
    ],
    failures: {
      400: `${CHALLENGE_REFUSED}; or a field breaks its rule`,
      401:
        'The passkey is unknown, or its signature, origin or RP id does not verify (`invalid passkey`); it was made ' +
        'without user verification while that is required (`user verification required`); or its signature ' +
        'counter did not advance (`signature counter did not advance`: a cloned authenticator)',
    },
  }),
};

/** A passkey on the wire: its name, kind and dates; never its key. */
export function presentPasskey(passkey: Passkey): Record<string, unknown> {
  return {
    id: passkey.id,
    name: passkey.name,
    device_type: passkey.deviceType,
    backed_up: passkey.backedUp,
    created_at: passkey.createdAt.toISOString(),
    last_used_at: passkey.lastUsedAt === null ? null : passkey.lastUsedAt.toISOString(),
  };
}

/** `/api/v1/profile/passkeys*` (token only, open to callers who must enrol) and `/api/v1/auth/passkey*` (public). */
export function passkeyRoutes(useCases: PasskeyUseCases): (router: Router<RequestState>) => void {
  const ops = PASSKEY_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.startPasskeyRegistration, async (ctx) => {
      ctx.body = success(await useCases.startRegistration.execute({ userId: ctx.state.principal!.userId }));
    });

    api.on(ops.registerPasskey, async (ctx, { body }) => {
      const passkey = await useCases.register.execute({
        userId: ctx.state.principal!.userId,
        credential: { id: body.id, type: 'public-key', response: body.response },
        ...(body.name === undefined ? {} : { name: body.name }),
      });
      ctx.status = 201;
      ctx.body = success(presentPasskey(passkey));
    });

    api.on(ops.listPasskeys, async (ctx) => {
      ctx.body = success((await useCases.list.execute({ userId: ctx.state.principal!.userId })).map(presentPasskey));
    });

    api.on(ops.removePasskey, async (ctx) => {
      await useCases.remove.execute({
        userId: ctx.state.principal!.userId,
        passkeyId: idOf(ctx.params.id, (id) => new PasskeyNotFoundError(id)),
      });
      ctx.status = 204;
    });

    api.on(ops.startPasskeySignIn, async (ctx) => {
      ctx.body = success(await useCases.startSignIn.execute());
    });

    api.on(ops.signInWithPasskey, async (ctx, { body }) => {
      const userAgent = ctx.get('User-Agent');
      const { user, outcome } = await useCases.signIn.execute({
        credential: { id: body.id, type: 'public-key', response: body.response },
        client: { ip: ctx.ip, userAgent: userAgent === '' ? null : userAgent },
      });
      ctx.body = success(
        outcome.kind === 'session' ? { user: presentUser(user), ...presentSignIn(outcome) } : presentSignIn(outcome),
      );
    });
  };
}
