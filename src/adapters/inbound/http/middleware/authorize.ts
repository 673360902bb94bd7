import type { Middleware } from 'koa';
import type { AccessPolicy } from '../../../../application/ports/AccessPolicy.js';
import { ForbiddenError, UnauthorizedError } from '../../../../domain/shared/DomainError.js';
import type { RequestState } from '../state.js';

/** `/api/v1/products/:id` (the router's pattern) → `/api/v1/products/{id}` (the policy's). */
export function policyPath(routePattern: string): string {
  return routePattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/**
 * Route middleware after `authenticate`: asks the policy whether the caller's role may use the
 * route that actually matched (its pattern, never the raw URL, so case, slashes and encoding
 * tricks cannot reach a handler the role is denied) with this method — and GET each route of
 * `readsToo` (a nested list's parent row); 403 `FORBIDDEN` otherwise. HEAD is checked as GET.
 */
export function authorize(
  policy: AccessPolicy,
  routePattern: string,
  readsToo: readonly string[] = [],
): Middleware<RequestState> {
  const object = policyPath(routePattern);
  const reads = readsToo.map(policyPath);
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new UnauthorizedError('missing bearer token');
    const action = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    if (!(await policy.enforce(principal.role, object, action))) throw new ForbiddenError();
    for (const path of reads) if (!(await policy.enforce(principal.role, path, 'GET'))) throw new ForbiddenError();
    await next();
  };
}
