/** One allow rule: `role` may use `action` (a whole-match regular expression) on `path` (a pattern). */
export interface PolicyRule {
  readonly role: string;
  readonly path: string;
  readonly action: string;
}

/** `role` inherits every rule of `parent`. */
export interface RoleInheritance {
  readonly role: string;
  readonly parent: string;
}

/**
 * Role-based access control. Promises: `enforce` answers from the current rules, including
 * inheritance; changes made through `add`/`remove` take effect at once and persist (persistent
 * adapters); `add` of an existing rule and `remove` of a missing one return false.
 */
export interface AccessPolicy {
  enforce(role: string, path: string, action: string): Promise<boolean>;
  list(): Promise<{ policies: PolicyRule[]; inheritance: RoleInheritance[] }>;
  add(rule: PolicyRule): Promise<boolean>;
  remove(rule: PolicyRule): Promise<boolean>;
  /** Roles named anywhere in the rules or the inheritance. */
  roles(): Promise<string[]>;
}
