import type { PolicyRule, RoleInheritance } from '../../src/application/ports/AccessPolicy.js';

/** The rules of policy/policy.csv, as docs/access-rules.md states them (written out, not read from the file). */
export const SEED_POLICIES: readonly PolicyRule[] = [
  { role: 'admin', path: '/api/v1/*', action: '.*', scope: 'all' },
  { role: 'admin', path: '/api/v1/admin/*', action: '.*', scope: 'all' },
  { role: 'user', path: '/api/v1/products', action: 'GET', scope: 'all' },
  { role: 'user', path: '/api/v1/products/{id}', action: 'GET', scope: 'all' },
  { role: 'user', path: '/api/v1/profile', action: 'GET|PUT', scope: 'all' },
  { role: 'moderator', path: '/api/v1/products', action: '.*', scope: 'all' },
  { role: 'moderator', path: '/api/v1/products/{id}', action: '.*', scope: 'all' },
];

/** The inheritance lines of policy/policy.csv. */
export const SEED_INHERITANCE: readonly RoleInheritance[] = [
  { role: 'admin', parent: 'moderator' },
  { role: 'moderator', parent: 'user' },
];
