import type Router from '@koa/router';
import type { ConfirmEmail } from '../../../../application/account/ConfirmEmail.js';
import type { EndAllSessions } from '../../../../application/account/EndAllSessions.js';
import type { EndSession } from '../../../../application/account/EndSession.js';
import type { ListSessions } from '../../../../application/account/ListSessions.js';
import type { RequestEmailVerification } from '../../../../application/account/RequestEmailVerification.js';
import type { RequestPasswordReset } from '../../../../application/account/RequestPasswordReset.js';
import type { ResetPassword } from '../../../../application/account/ResetPassword.js';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import { SessionNotFoundError } from '../../../../domain/user/UserErrors.js';
import { ForgotPasswordBody, ResetPasswordBody, VerifyEmailBody } from '../../codecs/userCodecs.js';
import { arrayOf } from '../../codecs/jsonSchema.js';
import { idOf } from '../../ids.js';
import { success } from '../envelope.js';
import { accepted, noContent, ok, operation, RestRoutes } from '../operations.js';
import { ACTIVE_SESSION_SCHEMA, presentSession, presentUser, USER_SCHEMA } from '../presenters.js';
import type { RequestState } from '../state.js';

export interface AccountUseCases {
  authenticate: Authenticate;
  requestPasswordReset: RequestPasswordReset;
  resetPassword: ResetPassword;
  requestEmailVerification: RequestEmailVerification;
  confirmEmail: ConfirmEmail;
  listSessions: ListSessions;
  endSession: EndSession;
  endAllSessions: EndAllSessions;
}

const tag = {
  name: 'account',
  description: 'Password reset, e-mail verification and the sessions a user can see and end (docs/authentication.md)',
};

const INVALID_TOKEN =
  'The token is malformed, unknown, spent, expired or of another kind (INVALID_TOKEN, `invalid or expired token`)';

/** The account operations: the router and the API document both read them. */
export const ACCOUNT_OPERATIONS = {
  forgotPassword: operation({
    id: 'forgotPassword',
    method: 'POST',
    path: '/api/v1/auth/password/forgot',
    tag,
    summary: 'Ask for a password reset link',
    description:
      'When the e-mail is registered, a link with a single-use token valid for 1 hour is mailed to it (at most 3 an hour). ' +
      'The answer is the same, after the same time, whether or not it is.',
    access: 'public',
    body: ForgotPasswordBody,
    answers: [accepted('Taken; a link is mailed if the address is registered')],
  }),
  resetPassword: operation({
    id: 'resetPassword',
    method: 'POST',
    path: '/api/v1/auth/password/reset',
    tag,
    summary: 'Set a new password with a reset token',
    description:
      'Spends the token and ends every session of the user: its refresh tokens and its access tokens stop working.',
    access: 'public',
    body: ResetPasswordBody,
    answers: [noContent('The password is changed; log in with it')],
    failures: { 400: INVALID_TOKEN },
  }),
  requestEmailVerification: operation({
    id: 'requestEmailVerification',
    method: 'POST',
    path: '/api/v1/auth/email/verify/request',
    tag,
    summary: 'Ask for an e-mail verification link',
    description:
      'Mails the caller a link with a single-use token valid for 24 hours (none when the e-mail is verified, or 3 went out within the hour). The mail is a background job: stored before the answer, sent after it, retried while the mail server is down.',
    access: 'token',
    answers: [accepted('Taken; the link is on its way')],
  }),
  verifyEmail: operation({
    id: 'verifyEmail',
    method: 'POST',
    path: '/api/v1/auth/email/verify',
    tag,
    summary: 'Verify the e-mail with a verification token',
    access: 'public',
    body: VerifyEmailBody,
    answers: [ok(200, 'The user, with `email_verified: true`', USER_SCHEMA)],
    failures: { 400: `${INVALID_TOKEN}; a token sent to an address the user no longer has is invalid too` },
  }),
  listSessions: operation({
    id: 'listSessions',
    method: 'GET',
    path: '/api/v1/auth/sessions',
    tag,
    summary: 'List my sessions',
    description: 'The active sessions (one per login), newest first; `current` marks the one of this request.',
    access: 'token',
    answers: [ok(200, 'The active sessions', arrayOf(ACTIVE_SESSION_SCHEMA))],
  }),
  endSession: operation({
    id: 'endSession',
    method: 'DELETE',
    path: '/api/v1/auth/sessions/:id',
    tag,
    summary: 'End one of my sessions',
    description: 'Its refresh tokens stop working at once, its access tokens within a second.',
    access: 'token',
    answers: [noContent('The session is ended')],
    failures: { 404: "None of the caller's active sessions has this id" },
  }),
  logoutAll: operation({
    id: 'logoutAll',
    method: 'POST',
    path: '/api/v1/auth/logout-all',
    tag,
    summary: 'End all my sessions',
    description: 'Every session of the caller ends, this one included.',
    access: 'token',
    answers: [noContent('Every session is ended')],
  }),
};

/** Password reset, e-mail verification and sessions under `/api/v1/auth/*` (docs/authentication.md). */
export function accountRoutes(useCases: AccountUseCases): (router: Router<RequestState>) => void {
  const ops = ACCOUNT_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.forgotPassword, async (ctx, { body }) => {
      await useCases.requestPasswordReset.execute({ email: body.email, clientIp: ctx.ip });
      ctx.status = 202;
      ctx.body = success(null, { message: 'if the address is registered, a reset link has been sent to it' });
    });

    api.on(ops.resetPassword, async (ctx, { body }) => {
      await useCases.resetPassword.execute({ token: body.token, password: body.password });
      ctx.status = 204;
    });

    api.on(ops.requestEmailVerification, async (ctx) => {
      await useCases.requestEmailVerification.execute({
        userId: ctx.state.principal!.userId,
        clientIp: ctx.ip,
      });
      ctx.status = 202;
      ctx.body = success(null, {
        message: 'unless the address is verified already, a verification link has been sent to it',
      });
    });

    api.on(ops.verifyEmail, async (ctx, { body }) => {
      ctx.body = success(presentUser(await useCases.confirmEmail.execute({ token: body.token })));
    });

    api.on(ops.listSessions, async (ctx) => {
      const { userId, sessionId } = ctx.state.principal!;
      ctx.body = success((await useCases.listSessions.execute({ userId, sessionId })).map(presentSession));
    });

    api.on(ops.endSession, async (ctx) => {
      const sessionId = idOf(ctx.params.id, (id) => new SessionNotFoundError(id));
      await useCases.endSession.execute({ userId: ctx.state.principal!.userId, sessionId });
      ctx.status = 204;
    });

    api.on(ops.logoutAll, async (ctx) => {
      await useCases.endAllSessions.execute({ userId: ctx.state.principal!.userId });
      ctx.status = 204;
    });
  };
}
