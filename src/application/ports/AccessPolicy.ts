/**
 * How much of a resource a rule reaches: `all` its rows, `own` only the caller's rows of an owned
 * resource (lists and totals hold only theirs; another's row is not found).
 */
export type AccessScope = 'all' | 'own';

/** The scopes, `all` (the default) first. */
export const ACCESS_SCOPES: readonly AccessScope[] = ['all', 'own'];

/**
 * One allow rule: `role` may use `action` (a whole-match regular expression) on `path` (a pattern),
 * reaching `scope` (absent: `all`). A rule is its four parts: the same rule of another scope is another rule.
 */
export interface PolicyRule {
  readonly role: string;
  readonly path: string;
  readonly action: string;
  readonly scope?: AccessScope;
}

/** `role` inherits every rule of `parent`. */
export interface RoleInheritance {
  readonly role: string;
  readonly parent: string;
}

/** A path and an action (e.g. `POST`) that some role must stay able to reach. */
export interface Reach {
  readonly path: string;
  readonly action: string;
}

/** What `removeKeepingReach` did: `unreachable` means it refused and changed nothing. */
export type ReachKeepingRemoval = 'removed' | 'not-found' | 'unreachable';

/**
 * Role-based access control. Promises: `enforce` answers from the current rules, including
 * inheritance; changes made through `add`/`remove` take effect at once and persist (persistent
 * adapters); `add` of an existing rule and `remove` of a missing one return false.
 */
export interface AccessPolicy {
  enforce(role: string, path: string, action: string): Promise<boolean>;
  /**
   * What `role` reaches with `action` on `path`: `all` when a rule of scope `all` allows it (its own
   * or inherited — `all` wins over `own`), else `own` when a rule of scope `own` does, else
   * undefined (denied). `enforce` is whether this is defined.
   */
  scopeOf(role: string, path: string, action: string): Promise<AccessScope | undefined>;
  /** Every rule (each with its scope stated) and every inheritance line. */
  list(): Promise<{ policies: PolicyRule[]; inheritance: RoleInheritance[] }>;
  add(rule: PolicyRule): Promise<boolean>;
  remove(rule: PolicyRule): Promise<boolean>;
  /**
   * Removes `rule` like `remove`, unless afterwards no role named in the rules (as a rule's role
   * or on either side of an inheritance line; inherited rules count) could still perform
   * `reach.action` on `reach.path`: then it changes nothing and answers `unreachable`. Decided on
   * the stored rules and atomic against other such removals, also from other instances sharing
   * them, so two removals each harmless alone never both happen. A refused removal is never
   * announced to other instances.
   */
  removeKeepingReach(rule: PolicyRule, reach: Reach): Promise<ReachKeepingRemoval>;
  /** Roles named anywhere in the rules or the inheritance. */
  roles(): Promise<string[]>;
}
