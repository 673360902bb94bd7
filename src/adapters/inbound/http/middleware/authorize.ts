import type { Middleware } from 'koa';
import type { AccessPolicy, AccessScope } from '../../../../application/ports/AccessPolicy.js';
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
 * What the rules reach (every row, or only the caller's own) is left on `ctx.state.access` for
 * the handler to pass to its use case. With `asMethod`, the policy is asked about that method
 * whatever the request's (a route that follows another's rules: a file upload its item's `PUT`).
 */
export function authorize(
  policy: AccessPolicy,
  routePattern: string,
  readsToo: readonly string[] = [],
  asMethod?: string,
): Middleware<RequestState> {
  const object = policyPath(routePattern);
  const reads = readsToo.map(policyPath);
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new UnauthorizedError('missing bearer token');
    const action = asMethod ?? (ctx.method === 'HEAD' ? 'GET' : ctx.method);
    const scope = await policy.scopeOf(principal.role, object, action);
    if (scope === undefined) throw new ForbiddenError();
    const readScopes: AccessScope[] = [];
    for (const path of reads) {
      const read = await policy.scopeOf(principal.role, path, 'GET');
      if (read === undefined) throw new ForbiddenError();
      readScopes.push(read);
    }
    ctx.state.access = { scope, reads: readScopes };
    await next();
  };
}
