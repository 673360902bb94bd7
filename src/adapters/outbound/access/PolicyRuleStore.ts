/**
 * One stored casbin line: `p, role, path, action` or `g, role, parent`. A rule of scope `own` has a
 * fourth value, `own`; a rule of scope `all` has none (so older rules, and every `all` rule, are
 * the same three values).
 */
export interface StoredRule {
  readonly kind: 'p' | 'g';
  readonly values: readonly string[];
}

/** What `removeIf` did: `kept` means `keep` refused and the rule is still there. */
export type GuardedRemoval = 'removed' | 'not-found' | 'kept';

/** What `replaceAll` changed: the rules it took out and the ones it put in (unchanged ones in neither). */
export interface Replacement {
  readonly removed: StoredRule[];
  readonly added: StoredRule[];
}

/** The same rule, compared by kind and values. */
export const sameRule = (a: StoredRule, b: StoredRule): boolean =>
  a.kind === b.kind && a.values.length === b.values.length && a.values.every((value, i) => value === b.values[i]);

/**
 * Where the access rules live between restarts. Promises: `load` returns `undefined` until the
 * store has been seeded once (an emptied policy stays empty); `seed` writes the rules and marks
 * the store seeded in one step and does nothing when another instance seeded it first.
 */
export interface PolicyRuleStore {
  load(): Promise<StoredRule[] | undefined>;
  seed(rules: readonly StoredRule[]): Promise<void>;
  /** `false` when the rule was already there. */
  add(rule: StoredRule): Promise<boolean>;
  /** `false` when there was no such rule. */
  remove(rule: StoredRule): Promise<boolean>;
  /**
   * Removes `rule` only if `allowed(rest)` — asked with every rule that would remain — answers
   * true; otherwise the rule stays (`kept`). Atomic against other `removeIf` calls, also from other
   * instances on the same storage: two removals that are each allowed alone but not together
   * never both happen. (`allowed` may see a state briefly; it must not change the store.)
   */
  removeIf(rule: StoredRule, allowed: (rest: StoredRule[]) => Promise<boolean>): Promise<GuardedRemoval>;
  /**
   * Makes the stored rules exactly `rules`, in one step, and marks the store seeded; answers what
   * it removed and added.
   */
  replaceAll(rules: readonly StoredRule[]): Promise<Replacement>;
}

/**
 * Parses casbin policy CSV: `p, role, path, action[, scope]` (scope `all`, the default, or `own`) and
 * `g, role, parent` lines; blank lines and `#` comments skipped.
 */
export function parsePolicyCsv(text: string): StoredRule[] {
  const rules: StoredRule[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [kind, ...values] = line.split(',').map((part) => part.trim());
    if (kind === 'p' && values.length === 4 && (values[3] === 'all' || values[3] === 'own')) {
      rules.push({ kind, values: values[3] === 'own' ? values : values.slice(0, 3) });
    } else if ((kind === 'p' && values.length === 3) || (kind === 'g' && values.length === 2)) {
      rules.push({ kind, values });
    } else {
      throw new Error(
        `policy line ${index + 1} is not "p, role, path, action[, all|own]" or "g, role, parent": ${line}`,
      );
    }
  }
  return rules;
}
