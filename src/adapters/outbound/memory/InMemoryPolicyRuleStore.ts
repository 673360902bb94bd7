import type { PolicyRuleStore, StoredRule } from '../access/PolicyRuleStore.js';

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
}
