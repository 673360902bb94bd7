import { ACCESS_SCOPES, type AccessScope } from '../../../application/ports/AccessPolicy.js';
import { optional, required, rule } from './fields.js';
import { RoleField } from './userCodecs.js';

/** A route pattern as the policy writes it: `/api/v1/...`, with `{param}` segments and `*`. */
const POLICY_PATH = /^\/api\/v1(\/([A-Za-z0-9._~-]+|\{[A-Za-z_][A-Za-z0-9_]*\}|\*))*\/?$/;

export const PolicyPathField = rule(
  'must be a path pattern starting with /api/v1 (segments, {param} or *)',
  (u) => {
    if (typeof u !== 'string') return undefined;
    const path = u.trim();
    return POLICY_PATH.test(path) && path.length <= 200 ? path : undefined;
  },
  { type: 'string', pattern: POLICY_PATH.source, maxLength: 200, examples: ['/api/v1/products/{id}'] },
);

/** A regular expression over HTTP methods (`GET`, `GET|PUT`, `.*`), matched as a whole. */
const POLICY_ACTION = /^[A-Za-z|.*()^$?+[\]-]+$/;

export const PolicyActionField = rule(
  'must be a regular expression of HTTP methods, such as GET|PUT or .*',
  (u) => {
    if (typeof u !== 'string') return undefined;
    const action = u.trim();
    if (action === '' || action.length > 100 || !POLICY_ACTION.test(action)) return undefined;
    try {
      new RegExp(`^(${action})$`);
      return action;
    } catch {
      return undefined;
    }
  },
  { type: 'string', pattern: POLICY_ACTION.source, minLength: 1, maxLength: 100, examples: ['GET|PUT'] },
);

/** How much a rule reaches: `all` rows (the default), or `own` — only the caller's rows of an owned resource. */
export const PolicyScopeField = rule(
  `must be one of: ${ACCESS_SCOPES.join(', ')}`,
  (u) => ((ACCESS_SCOPES as readonly unknown[]).includes(u) ? (u as AccessScope) : undefined),
  {
    type: 'string',
    enum: [...ACCESS_SCOPES],
    default: 'all',
    description: 'all: every row; own: only the rows the caller owns (an owned resource)',
  },
);

export const PolicyBody = {
  role: required(RoleField),
  path: required(PolicyPathField),
  action: required(PolicyActionField),
  scope: optional(PolicyScopeField),
};
