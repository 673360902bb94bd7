import { required, rule } from './fields.js';
import { RoleField } from './userCodecs.js';

/** A route pattern as the policy writes it: `/api/v1/...`, with `{param}` segments and `*`. */
export const PolicyPathField = rule('must be a path pattern starting with /api/v1 (segments, {param} or *)', (u) => {
  if (typeof u !== 'string') return undefined;
  const path = u.trim();
  return /^\/api\/v1(\/([A-Za-z0-9._~-]+|\{[A-Za-z_][A-Za-z0-9_]*\}|\*))*\/?$/.test(path) && path.length <= 200 ? path : undefined;
});

/** A regular expression over HTTP methods (`GET`, `GET|PUT`, `.*`), matched as a whole. */
export const PolicyActionField = rule('must be a regular expression of HTTP methods, such as GET|PUT or .*', (u) => {
  if (typeof u !== 'string') return undefined;
  const action = u.trim();
  if (action === '' || action.length > 100 || !/^[A-Za-z|.*()^$?+[\]-]+$/.test(action)) return undefined;
  try {
    new RegExp(`^(${action})$`);
    return action;
  } catch {
    return undefined;
  }
});

export const PolicyBody = {
  role: required(RoleField),
  path: required(PolicyPathField),
  action: required(PolicyActionField),
};
