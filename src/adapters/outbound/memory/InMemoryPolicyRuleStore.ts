import type { GuardedRemoval, PolicyRuleStore, Replacement, StoredRule } from '../access/PolicyRuleStore.js';

const keyOf = (rule: StoredRule): string => [rule.kind, ...rule.values].join('\u0000');

/** Access rules in memory (lost on restart): for tests and throwaway runs. */
export class InMemoryPolicyRuleStore implements PolicyRuleStore {
  private readonly rules = new Map<string, StoredRule>();
  /** Kept apart from the rules: an `add` before the first `seed` does not count as seeding. */
  private seeded = false;

  async load(): Promise<StoredRule[] | undefined> {
    return this.seeded ? [...this.rules.values()] : undefined;
  }

  async seed(rules: readonly StoredRule[]): Promise<void> {
    if (this.seeded) return;
    for (const rule of rules) if (!this.rules.has(keyOf(rule))) this.rules.set(keyOf(rule), rule);
    this.seeded = true;
  }

  async add(rule: StoredRule): Promise<boolean> {
    if (this.rules.has(keyOf(rule))) return false;
    this.rules.set(keyOf(rule), rule);
    return true;
  }

  async remove(rule: StoredRule): Promise<boolean> {
    return this.rules.delete(keyOf(rule));
  }

  /**
   * Takes the rule out first and puts it back if refused, so a removal running meanwhile sees it
   * gone: two removals that are each allowed alone but not together cannot both pass (one may be
   * refused that would have passed a moment later — the safe side).
   */
  async removeIf(rule: StoredRule, allowed: (rest: StoredRule[]) => Promise<boolean>): Promise<GuardedRemoval> {
    const key = keyOf(rule);
    const stored = this.rules.get(key);
    if (!stored) return 'not-found';
    this.rules.delete(key);
    let keep = true;
    try {
      keep = !(await allowed([...this.rules.values()]));
    } finally {
      if (keep && !this.rules.has(key)) this.rules.set(key, stored);
    }
    return keep ? 'kept' : 'removed';
  }

  async replaceAll(rules: readonly StoredRule[]): Promise<Replacement> {
    const wanted = new Map(rules.map((rule) => [keyOf(rule), rule]));
    const removed = [...this.rules].filter(([key]) => !wanted.has(key)).map(([, rule]) => rule);
    const added = [...wanted].filter(([key]) => !this.rules.has(key)).map(([, rule]) => rule);
    this.rules.clear();
    for (const [key, rule] of wanted) this.rules.set(key, rule);
    this.seeded = true;
    return { removed, added };
  }
}
