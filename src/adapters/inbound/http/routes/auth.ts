import type Router from '@koa/router';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import type { LoginUser } from '../../../../application/auth/LoginUser.js';
import type { Logout } from '../../../../application/auth/Logout.js';
import type { RefreshSession } from '../../../../application/auth/RefreshSession.js';
import type { RegisterUser } from '../../../../application/auth/RegisterUser.js';
import { LoginBody, RefreshBody, RegisterBody } from '../../codecs/userCodecs.js';
import { success } from '../envelope.js';
import { noContent, ok, operation, RestRoutes } from '../operations.js';
import { presentTokens, presentUser, REGISTERED_SCHEMA, SESSION_SCHEMA, TOKENS_SCHEMA } from '../presenters.js';
import type { RequestState } from '../state.js';
import { MFA_REQUIRED_SCHEMA, presentSignIn } from './mfa.js';

export interface AuthUseCases {
  register: RegisterUser;
  login: LoginUser;
  refresh: RefreshSession;
  logout: Logout;
  authenticate: Authenticate;
}

const tag = { name: 'auth', description: 'Registration, login and the refresh-token session (docs/authentication.md)' };

/** The auth operations: the router and the API document both read them. */
export const AUTH_OPERATIONS = {
  register: operation({
    id: 'register',
    method: 'POST',
    path: '/api/v1/auth/register',
    tag,
    summary: 'Register',
    description:
      'Creates a user with the role `user` (a `role` in the body is ignored), mails it a verification link and logs it in. ' +
      'With `auth.require_verified_email` on, it is not logged in: it logs in once its e-mail is verified.',
    access: 'public',
    body: RegisterBody,
    answers: [
      ok(201, 'The new user and its first token pair (only the user when `auth.require_verified_email` is on)', {
        oneOf: [SESSION_SCHEMA, REGISTERED_SCHEMA],
      }),
    ],
    failures: { 409: 'The e-mail is already registered' },
  }),
  login: operation({
    id: 'login',
    method: 'POST',
    path: '/api/v1/auth/login',
    tag,
    summary: 'Log in',
    description:
      'With a second factor on, no tokens yet: `mfa_required`, an `mfa_token` and the `methods` to finish with at ' +
      'POST /api/v1/auth/mfa.',
    access: 'public',
    body: LoginBody,
    answers: [
      ok(200, 'The user and a new token pair, or (a second factor on) what finishes the sign-in', {
        oneOf: [SESSION_SCHEMA, MFA_REQUIRED_SCHEMA],
      }),
    ],
    failures: {
      401: 'Unknown e-mail or wrong password (`invalid credentials`, the same for both)',
      403: 'With `auth.require_verified_email` on, the e-mail is not verified yet (EMAIL_NOT_VERIFIED); a new link is mailed',
      429: 'Too many failed logins for this e-mail from this client; `Retry-After` says when to try again',
    },
  }),
  refresh: operation({
    id: 'refresh',
    method: 'POST',
    path: '/api/v1/auth/refresh',
    tag,
    summary: 'Refresh the session',
    description:
      'Spends the refresh token and returns a new pair. A spent token presented again revokes every token of its login.',
    access: 'public',
    body: RefreshBody,
    answers: [ok(200, 'A new token pair', TOKENS_SCHEMA)],
    failures: { 401: 'The refresh token is invalid, expired, spent or revoked' },
  }),
  logout: operation({
    id: 'logout',
    method: 'POST',
    path: '/api/v1/auth/logout',
    tag,
    summary: 'Log out',
    description:
      "Ends the session of the refresh token: it and every token descended from the same login stop working, and so do the session's access tokens.",
    access: 'token',
    body: RefreshBody,
    answers: [noContent('The session is ended')],
    failures: {
      401: 'the refresh token in the body is not a live one of the caller (without WWW-Authenticate: the bearer token is fine)',
    },
  }),
};

/** Who is starting a session: the client address (as `server.trust_proxy` decides it) and its User-Agent. */
function clientOf(ctx: { ip: string; get(name: string): string }): { ip: string; userAgent: string | null } {
  const userAgent = ctx.get('User-Agent');
  return { ip: ctx.ip, userAgent: userAgent === '' ? null : userAgent };
}

/** `/api/v1/auth/*`: register (201), login, refresh (public), logout (bearer token, 204). */
export function authRoutes(useCases: AuthUseCases): (router: Router<RequestState>) => void {
  const ops = AUTH_OPERATIONS;
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.register, async (ctx, { body }) => {
      const { user, tokens } = await useCases.register.execute({
        email: body.email,
        password: body.password,
        firstName: body.first_name,
        lastName: body.last_name,
        client: clientOf(ctx),
      });
      ctx.status = 201;
      ctx.body = success({ user: presentUser(user), ...(tokens ? presentTokens(tokens) : {}) });
    });

    api.on(ops.login, async (ctx, { body }) => {
      const { ip, userAgent } = clientOf(ctx);
      const { user, outcome } = await useCases.login.execute({
        email: body.email,
        password: body.password,
        clientIp: ip,
        userAgent,
      });
      ctx.body = success(
        outcome.kind === 'session' ? { user: presentUser(user), ...presentSignIn(outcome) } : presentSignIn(outcome),
      );
    });

    api.on(ops.refresh, async (ctx, { body }) => {
      ctx.body = success(presentTokens(await useCases.refresh.execute({ refreshToken: body.refresh_token })));
    });

    api.on(ops.logout, async (ctx, { body }) => {
      await useCases.logout.execute({ userId: ctx.state.principal!.userId, refreshToken: body.refresh_token });
      ctx.status = 204;
    });
  };
}
