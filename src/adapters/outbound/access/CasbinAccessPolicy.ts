import { newEnforcer, newModelFromString, type Enforcer } from 'casbin';
import type {
  AccessPolicy,
  PolicyRule,
  Reach,
  ReachKeepingRemoval,
  RoleInheritance,
} from '../../../application/ports/AccessPolicy.js';
import type { PolicyRuleStore, StoredRule } from './PolicyRuleStore.js';

const toStored = (rule: PolicyRule): StoredRule => ({ kind: 'p', values: [rule.role, rule.path, rule.action] });

/**
 * casbin RBAC from `policy/model.conf`, with the rules kept in a PolicyRuleStore (seeded from
 * `policy/policy.csv` on first start; the file is never written). Decisions are cached per
 * (role, path, action) until the rules change. `onChange` is told after every local change so
 * other instances can `reload`.
 */
export class CasbinAccessPolicy implements AccessPolicy {
  private readonly decisions = new Map<string, boolean>();
  private onChange: () => void = () => undefined;

  private constructor(
    private enforcer: Enforcer,
    private readonly modelText: string,
    private readonly store: PolicyRuleStore,
  ) {}

  /** Loads the rules, seeding the store from `seedRules` the first time. */
  static async create(
    modelText: string,
    store: PolicyRuleStore,
    seedRules: readonly StoredRule[],
  ): Promise<CasbinAccessPolicy> {
    let rules = await store.load();
    if (rules === undefined) {
      await store.seed(seedRules);
      rules = (await store.load()) ?? [];
    }
    return new CasbinAccessPolicy(await CasbinAccessPolicy.build(modelText, rules), modelText, store);
  }

  private static async build(modelText: string, rules: readonly StoredRule[]): Promise<Enforcer> {
    const enforcer = await newEnforcer(newModelFromString(modelText));
    const p = rules.filter((r) => r.kind === 'p').map((r) => [...r.values]);
    const g = rules.filter((r) => r.kind === 'g').map((r) => [...r.values]);
    if (p.length > 0) await enforcer.addPolicies(p);
    if (g.length > 0) await enforcer.addGroupingPolicies(g);
    return enforcer;
  }

  /** Called after each add/remove made here (e.g. to publish the change to other instances). */
  subscribe(listener: () => void): void {
    this.onChange = listener;
  }

  /** Re-reads every rule from the store (another instance changed them). */
  async reload(): Promise<void> {
    const rules = (await this.store.load()) ?? [];
    this.enforcer = await CasbinAccessPolicy.build(this.modelText, rules);
    this.decisions.clear();
  }

  async enforce(role: string, path: string, action: string): Promise<boolean> {
    const key = `${role}\u0000${path}\u0000${action}`;
    let allowed = this.decisions.get(key);
    if (allowed === undefined) {
      allowed = this.enforcer.enforceSync(role, path, action);
      if (this.decisions.size > 10_000) this.decisions.clear();
      this.decisions.set(key, allowed);
    }
    return allowed;
  }

  async list(): Promise<{ policies: PolicyRule[]; inheritance: RoleInheritance[] }> {
    const policies = (await this.enforcer.getPolicy()).map(([role = '', path = '', action = '']) => ({
      role,
      path,
      action,
    }));
    const inheritance = (await this.enforcer.getGroupingPolicy()).map(([role = '', parent = '']) => ({ role, parent }));
    return { policies, inheritance };
  }

  async add(rule: PolicyRule): Promise<boolean> {
    if (await this.enforcer.hasPolicy(rule.role, rule.path, rule.action)) return false;
    const added = await this.store.add(toStored(rule));
    await this.enforcer.addPolicy(rule.role, rule.path, rule.action);
    this.changed();
    return added;
  }

  async remove(rule: PolicyRule): Promise<boolean> {
    if (!(await this.enforcer.hasPolicy(rule.role, rule.path, rule.action))) return false;
    await this.store.remove(toStored(rule));
    await this.enforcer.removePolicy(rule.role, rule.path, rule.action);
    this.changed();
    return true;
  }

  async removeKeepingReach(rule: PolicyRule, reach: Reach): Promise<ReachKeepingRemoval> {
    const outcome = await this.store.removeIf(toStored(rule), async (rest) => {
      const enforcer = await CasbinAccessPolicy.build(this.modelText, rest);
      const roles = new Set(rest.flatMap((line) => (line.kind === 'p' ? [line.values[0] ?? ''] : line.values)));
      return [...roles].some((role) => enforcer.enforceSync(role, reach.path, reach.action));
    });
    if (outcome === 'kept') return 'unreachable';
    // Gone from the store either way; another instance may have removed it before this one heard.
    if (await this.enforcer.hasPolicy(rule.role, rule.path, rule.action)) {
      await this.enforcer.removePolicy(rule.role, rule.path, rule.action);
      this.decisions.clear();
    }
    if (outcome === 'not-found') return 'not-found';
    this.changed();
    return 'removed';
  }

  async roles(): Promise<string[]> {
    const { policies, inheritance } = await this.list();
    return [...new Set([...policies.map((p) => p.role), ...inheritance.flatMap((g) => [g.role, g.parent])])].sort();
  }

  private changed(): void {
    this.decisions.clear();
    this.onChange();
  }
}
