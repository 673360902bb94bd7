import type { PolicyRuleStore, StoredRule } from '../access/PolicyRuleStore.js';

const keyOf = (rule: StoredRule): string => [rule.kind, ...rule.values].join('\u0000');

/** Access rules in memory (lost on restart): for tests and throwaway runs. */
export class InMemoryPolicyRuleStore implements PolicyRuleStore {
  private rules: Map<string, StoredRule> | undefined;

  async load(): Promise<StoredRule[] | undefined> {
    return this.rules ? [...this.rules.values()] : undefined;
  }

  async seed(rules: readonly StoredRule[]): Promise<void> {
    if (this.rules) return;
    this.rules = new Map(rules.map((r) => [keyOf(r), r]));
  }

  async add(rule: StoredRule): Promise<boolean> {
    this.rules ??= new Map();
    if (this.rules.has(keyOf(rule))) return false;
    this.rules.set(keyOf(rule), rule);
    return true;
  }

  async remove(rule: StoredRule): Promise<boolean> {
    return this.rules?.delete(keyOf(rule)) ?? false;
  }
}
