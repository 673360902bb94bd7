/** One stored casbin line: `p, role, path, action` or `g, role, parent`. */
export interface StoredRule {
  readonly kind: 'p' | 'g';
  readonly values: readonly string[];
}

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
}

/** Parses casbin policy CSV: `p, …` and `g, …` lines; blank lines and `#` comments skipped. */
export function parsePolicyCsv(text: string): StoredRule[] {
  const rules: StoredRule[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [kind, ...values] = line.split(',').map((part) => part.trim());
    if ((kind === 'p' && values.length === 3) || (kind === 'g' && values.length === 2)) {
      rules.push({ kind, values });
    } else {
      throw new Error(`policy line ${index + 1} is not "p, role, path, action" or "g, role, parent": ${line}`);
    }
  }
  return rules;
}
