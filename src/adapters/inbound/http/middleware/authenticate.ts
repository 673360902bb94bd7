import type { Context, Middleware } from 'koa';
import type { Authenticate } from '../../../../application/auth/Authenticate.js';
import { UnauthorizedError } from '../../../../domain/shared/DomainError.js';
import { HttpProblem } from '../HttpProblem.js';
import type { RequestState } from '../state.js';

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i; // the scheme is case-insensitive (RFC 7235)

/** The bearer token of a request, or the reason there is none. */
export function bearerToken(header: string): { token: string } | { problem: string } {
  if (header === '') return { problem: 'missing bearer token' };
  const match = BEARER.exec(header.trim());
  return match?.[1] ? { token: match[1] } : { problem: 'invalid authorization header' };
}

/** How many `Authorization` headers a request has (raw names and values alternate; nothing is copied). */
function authorizationCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') count += 1;
  }
  return count;
}

/**
 * The request's Authorization header, `''` when there is none. Two or more are a malformed request
 * (400 `BAD_REQUEST`, docs/errors.md): Node keeps only the first in `req.headers`, and a proxy in front
 * may have used another, so neither is trusted.
 */
export function authorizationHeader(ctx: Pick<Context, 'req' | 'get'>): string {
  if (authorizationCount(ctx.req.rawHeaders) > 1) {
    throw new HttpProblem(400, 'BAD_REQUEST', 'more than one Authorization header');
  }
  return ctx.get('Authorization');
}

/**
 * Route middleware: verifies `Authorization: Bearer <access token>` and puts the caller on
 * `ctx.state.principal`; 401 `UNAUTHORIZED` (with `WWW-Authenticate: Bearer`) otherwise, 400 for two
 * Authorization headers. `enrolling`: the route is one of a second factor's enrolment routes, which
 * a caller who must enrol one first may use (403 `MFA_ENROLLMENT_REQUIRED` elsewhere).
 */
export function authenticate(useCase: Authenticate, enrolling = false): Middleware<RequestState> {
  return async (ctx, next) => {
    const bearer = bearerToken(authorizationHeader(ctx));
    try {
      if ('problem' in bearer) throw new UnauthorizedError(bearer.problem);
      ctx.state.principal = await useCase.execute({ accessToken: bearer.token, enrolling });
    } catch (error) {
      if (error instanceof UnauthorizedError) ctx.set('WWW-Authenticate', 'Bearer');
      throw error;
    }
    await next();
  };
}
