/** A role name as the access policy knows it: lower-case letters, digits, `_` and `-`. */
export const ROLE_PATTERN = /^[a-z][a-z0-9_-]{0,49}$/;

/** The role every new registration gets. */
export const DEFAULT_ROLE = 'user';

export function isRoleName(value: string): boolean {
  return ROLE_PATTERN.test(value);
}
