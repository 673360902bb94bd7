import type Router from '@koa/router';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { ConfirmTotp } from '../../../../application/mfa/ConfirmTotp.js';
import type { DisableTotp } from '../../../../application/mfa/DisableTotp.js';
import type { SignInOutcome } from '../../../../application/mfa/SignInGate.js';
import type { StartTotp } from '../../../../application/mfa/StartTotp.js';
import type { VerifySecondFactor } from '../../../../application/mfa/VerifySecondFactor.js';
import { CurrentPasswordBody, SecondFactorBody, TotpConfirmBody } from '../../codecs/mfaCodecs.js';
import { arrayOf, closedObject, WIRE, type JsonSchema } from '../../codecs/jsonSchema.js';
import { success } from '../envelope.js';
import { noContent, ok, operation, RestRoutes } from '../operations.js';
import { presentTokens, presentUser, SESSION_SCHEMA } from '../presenters.js';
import type { RequestState } from '../state.js';

export interface MfaUseCases {
  authenticate: Authenticate;
  startTotp: StartTotp;
  confirmTotp: ConfirmTotp;
  disableTotp: DisableTotp;
  verifySecondFactor: VerifySecondFactor;
}

/** A sign-in held for its second factor: what login (and any first step) answers instead of tokens. */
export const MFA_REQUIRED_SCHEMA: JsonSchema = {
  title: 'MfaRequired',
  ...closedObject({
    mfa_required: { const: true },
    mfa_token: WIRE.text('Single use, for 5 minutes: POST it to /api/v1/auth/mfa with a code'),
    methods: arrayOf(
      { type: 'string', enum: ['totp', 'recovery_code', 'passkey'] },
      'The second factors the sign-in can be finished with: `totp` and `recovery_code` with the `mfa_token` at ' +
        '/api/v1/auth/mfa; `passkey` by a passkey sign-in of its own (POST /api/v1/auth/passkey/options, then ' +
        '/api/v1/auth/passkey), which needs no `mfa_token`',
    ),
  }),
};

const TOTP_SCHEMA: JsonSchema = {
  title: 'TotpSecret',
  ...closedObject({
    secret: WIRE.text('The base32 secret, for typing into an authenticator app'),
    otpauth_uri: WIRE.text('`otpauth://totp/…` (SHA-1, 6 digits, 30 s): show it as a QR code'),
  }),
};

const RECOVERY_CODES_SCHEMA: JsonSchema = {
  title: 'RecoveryCodes',
  ...closedObject({
    recovery_codes: arrayOf(
      WIRE.text('One recovery code'),
      'Ten single-use codes that finish a sign-in in place of a TOTP code; shown this once, stored only hashed',
    ),
  }),
};

const profileTag = { name: 'profile', description: "The caller's own account (a token is all it needs)" };
const authTag = {
  name: 'auth',
  description: 'Registration, login and the refresh-token session (docs/authentication.md)',
};

const WRONG_PASSWORD = 'A field is missing or malformed, or `current_password` is wrong (it counts as a failed login)';

/** The second-factor operations: the router and the API document both read them. */
export const MFA_OPERATIONS = {
  startTotp: operation({
    id: 'startTotp',
    method: 'POST',
    path: '/api/v1/profile/mfa/totp',
    tag: profileTag,
    summary: 'Start turning TOTP on',
    description:
      'Makes a new TOTP secret (stored encrypted) and answers it: nothing changes for sign-in until it is confirmed. ' +
      'Starting again replaces a secret not confirmed yet.',
    access: 'token',
    enrolment: true,
    body: CurrentPasswordBody,
    answers: [ok(200, 'The secret and its otpauth URI', TOTP_SCHEMA)],
    failures: {
      400: WRONG_PASSWORD,
      409: 'TOTP is already on',
      429: 'Too many failed attempts for this e-mail from this client',
    },
  }),
  confirmTotp: operation({
    id: 'confirmTotp',
    method: 'POST',
    path: '/api/v1/profile/mfa/totp/confirm',
    tag: profileTag,
    summary: 'Turn TOTP on',
    description:
      'A code from the authenticator proves it holds the secret: TOTP is on from now (login asks for a code), ' +
      'and ten recovery codes are answered, this once.',
    access: 'token',
    enrolment: true,
    body: TotpConfirmBody,
    answers: [ok(200, 'The recovery codes', RECOVERY_CODES_SCHEMA)],
    failures: { 400: 'The code is missing or does not match', 409: 'No TOTP secret waits for confirmation' },
  }),
  disableTotp: operation({
    id: 'disableTotp',
    method: 'DELETE',
    path: '/api/v1/profile/mfa/totp',
    tag: profileTag,
    summary: 'Turn TOTP off',
    description: 'Deletes the secret and the recovery codes: a password signs in alone again.',
    access: 'token',
    enrolment: true,
    body: CurrentPasswordBody,
    answers: [noContent('TOTP is off')],
    failures: {
      400: WRONG_PASSWORD,
      409: 'TOTP is not on',
      429: 'Too many failed attempts for this e-mail from this client',
    },
  }),
  verifySecondFactor: operation({
    id: 'verifySecondFactor',
    method: 'POST',
    path: '/api/v1/auth/mfa',
    tag: authTag,
    summary: 'Finish a sign-in with a second factor',
    description:
      'Trades the `mfa_token` of a login answer and a TOTP code (or a recovery code) for the session login would have ' +
      'started. A code works once; a wrong one counts as a failed login and leaves the token usable.',
    access: 'public',
    body: SecondFactorBody,
    answers: [ok(200, 'The user and a new token pair', SESSION_SCHEMA)],
    failures: {
      400: 'The mfa_token is malformed, unknown, spent or expired (INVALID_TOKEN)',
      401: 'The code is wrong, or was used already (`invalid code`)',
      429: 'Too many failed attempts for this e-mail from this client; `Retry-After` says when to try again',
    },
  }),
};

/** What a first sign-in step answers: the user and a token pair, or the second factor it waits for. */
export function presentSignIn(outcome: SignInOutcome): Record<string, unknown> {
  if (outcome.kind === 'session') return presentTokens(outcome.tokens);
  return {
    mfa_required: true,
    mfa_token: outcome.mfaToken,
    methods: outcome.methods,
  };
}

/** `/api/v1/profile/mfa/totp*` (token only, open to callers who must enrol) and `/api/v1/auth/mfa` (public). */
export function mfaRoutes(useCases: MfaUseCases): (router: Router<RequestState>) => void {
  const ops = MFA_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.startTotp, async (ctx, { body }) => {
      const { secret, otpauthUri } = await useCases.startTotp.execute({
        userId: ctx.state.principal!.userId,
        currentPassword: body.current_password,
        clientIp: ctx.ip,
      });
      ctx.body = success({ secret, otpauth_uri: otpauthUri });
    });

    api.on(ops.confirmTotp, async (ctx, { body }) => {
      const { recoveryCodes } = await useCases.confirmTotp.execute({
        userId: ctx.state.principal!.userId,
        code: body.code,
      });
      ctx.body = success({ recovery_codes: recoveryCodes });
    });

    api.on(ops.disableTotp, async (ctx, { body }) => {
      await useCases.disableTotp.execute({
        userId: ctx.state.principal!.userId,
        currentPassword: body.current_password,
        clientIp: ctx.ip,
      });
      ctx.status = 204;
    });

    api.on(ops.verifySecondFactor, async (ctx, { body }) => {
      const userAgent = ctx.get('User-Agent');
      const { user, tokens } = await useCases.verifySecondFactor.execute({
        mfaToken: body.mfa_token,
        code: body.code,
        client: { ip: ctx.ip, userAgent: userAgent === '' ? null : userAgent },
      });
      ctx.body = success({ user: presentUser(user), ...presentTokens(tokens) });
    });
  };
}
