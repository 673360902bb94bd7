import type { PolicyRule, RoleInheritance } from '../../src/application/ports/AccessPolicy.js';

/** The rules of policy/policy.csv, as docs/access-rules.md states them (written out, not read from the file). */
export const SEED_POLICIES: readonly PolicyRule[] = [
  { role: 'admin', path: '/api/v1/*', action: '.*' },
  { role: 'admin', path: '/api/v1/admin/*', action: '.*' },
  { role: 'user', path: '/api/v1/products', action: 'GET' },
  { role: 'user', path: '/api/v1/products/{id}', action: 'GET' },
  { role: 'user', path: '/api/v1/profile', action: 'GET|PUT' },
  { role: 'moderator', path: '/api/v1/products', action: '.*' },
  { role: 'moderator', path: '/api/v1/products/{id}', action: '.*' },
];

/** The inheritance lines of policy/policy.csv. */
export const SEED_INHERITANCE: readonly RoleInheritance[] = [
  { role: 'admin', parent: 'moderator' },
  { role: 'moderator', parent: 'user' },
];
