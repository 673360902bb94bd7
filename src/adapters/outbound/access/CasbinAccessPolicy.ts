import { newEnforcer, newModelFromString, type Enforcer } from 'casbin';
import type {
  AccessPolicy,
  AccessScope,
  PolicyRule,
  Reach,
  ReachKeepingRemoval,
  RoleInheritance,
} from '../../../application/ports/AccessPolicy.js';
import { sameRule, type PolicyRuleStore, type StoredRule } from './PolicyRuleStore.js';

const toStored = (rule: PolicyRule): StoredRule => ({
  kind: 'p',
  values: rule.scope === 'own' ? [rule.role, rule.path, rule.action, 'own'] : [rule.role, rule.path, rule.action],
});

const toRule = ([role = '', path = '', action = '', scope]: readonly string[]): PolicyRule => ({
  role,
  path,
  action,
  scope: scope === 'own' ? 'own' : 'all',
});

/** A `p` line as casbin holds it: role, path, action (the scope is kept beside, see `Enforcers`). */
const casbinLine = (rule: StoredRule): string[] => rule.values.slice(0, 3);

/**
 * The rules as two enforcers of the same model: `any` holds every rule, `all` only those of scope
 * `all` — so the model decides both exactly as it decides one, and a model file that knows
 * nothing of scopes keeps working.
 */
interface Enforcers {
  readonly any: Enforcer;
  readonly all: Enforcer;
}

/**
 * casbin RBAC from `policy/model.conf`, with the rules kept in a PolicyRuleStore (seeded from
 * `policy/policy.csv` on first start; the file is never written). A rule of scope `own` reaches
 * only the caller's rows; a role that an `all` rule (its own or inherited) allows reaches every
 * row. Decisions (the scope reached, or none) are cached per (role, path, action) until the rules
 * change. `onChange` is told after every local change so other instances can `reload`.
 */
export class CasbinAccessPolicy implements AccessPolicy {
  private readonly decisions = new Map<string, AccessScope | null>();
  private onChange: () => void = () => undefined;

  private constructor(
    private enforcers: Enforcers,
    private rules: StoredRule[],
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
    return new CasbinAccessPolicy(await CasbinAccessPolicy.build(modelText, rules), [...rules], modelText, store);
  }

  private static async build(modelText: string, rules: readonly StoredRule[]): Promise<Enforcers> {
    const everyRule = rules.filter((r) => r.kind === 'p');
    return {
      any: await CasbinAccessPolicy.enforcer(modelText, everyRule, rules),
      all: await CasbinAccessPolicy.enforcer(
        modelText,
        everyRule.filter((r) => r.values[3] !== 'own'),
        rules,
      ),
    };
  }

  private static async enforcer(
    modelText: string,
    policies: readonly StoredRule[],
    rules: readonly StoredRule[],
  ): Promise<Enforcer> {
    const enforcer = await newEnforcer(newModelFromString(modelText));
    const p = [...new Map(policies.map((r) => [casbinLine(r).join('\u0000'), casbinLine(r)])).values()];
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
    this.enforcers = await CasbinAccessPolicy.build(this.modelText, rules);
    this.rules = [...rules];
    this.decisions.clear();
  }

  async enforce(role: string, path: string, action: string): Promise<boolean> {
    return (await this.scopeOf(role, path, action)) !== undefined;
  }

  async scopeOf(role: string, path: string, action: string): Promise<AccessScope | undefined> {
    const key = `${role}\u0000${path}\u0000${action}`;
    let decision = this.decisions.get(key);
    if (decision === undefined) {
      const { any, all } = this.enforcers;
      // Most requests are decided by the first: the second is asked only of an `own`-only reach.
      decision = all.enforceSync(role, path, action) ? 'all' : any.enforceSync(role, path, action) ? 'own' : null;
      if (this.decisions.size > 10_000) this.decisions.clear();
      this.decisions.set(key, decision);
    }
    return decision ?? undefined;
  }

  async list(): Promise<{ policies: PolicyRule[]; inheritance: RoleInheritance[] }> {
    const policies = this.rules.filter((r) => r.kind === 'p').map((r) => toRule(r.values));
    const inheritance = this.rules
      .filter((r) => r.kind === 'g')
      .map(({ values: [role = '', parent = ''] }) => ({ role, parent }));
    return { policies, inheritance };
  }

  async add(rule: PolicyRule): Promise<boolean> {
    const stored = toStored(rule);
    if (this.has(stored)) return false;
    const added = await this.store.add(stored);
    await this.learn(stored);
    this.changed();
    return added;
  }

  async remove(rule: PolicyRule): Promise<boolean> {
    const stored = toStored(rule);
    if (!this.has(stored)) return false;
    await this.store.remove(stored);
    await this.forget(stored);
    this.changed();
    return true;
  }

  async removeKeepingReach(rule: PolicyRule, reach: Reach): Promise<ReachKeepingRemoval> {
    const stored = toStored(rule);
    const outcome = await this.store.removeIf(stored, async (rest) => {
      const enforcer = (await CasbinAccessPolicy.build(this.modelText, rest)).any;
      const roles = new Set(rest.flatMap((line) => (line.kind === 'p' ? [line.values[0] ?? ''] : line.values)));
      return [...roles].some((role) => enforcer.enforceSync(role, reach.path, reach.action));
    });
    if (outcome === 'kept') return 'unreachable';
    // Gone from the store either way; another instance may have removed it before this one heard.
    if (this.has(stored)) {
      await this.forget(stored);
      this.decisions.clear();
    }
    if (outcome === 'not-found') return 'not-found';
    this.changed();
    return 'removed';
  }

  private has(stored: StoredRule): boolean {
    return this.rules.some((other) => sameRule(other, stored));
  }

  /** Takes a rule added to the store into the enforcers. */
  private async learn(stored: StoredRule): Promise<void> {
    this.rules.push(stored);
    const line = casbinLine(stored);
    if (!(await this.enforcers.any.hasPolicy(...line))) await this.enforcers.any.addPolicy(...line);
    if (stored.values[3] !== 'own' && !(await this.enforcers.all.hasPolicy(...line)))
      await this.enforcers.all.addPolicy(...line);
  }

  /** Takes a rule removed from the store out of the enforcers (a twin of the other scope keeps its line in `any`). */
  private async forget(stored: StoredRule): Promise<void> {
    this.rules = this.rules.filter((other) => !sameRule(other, stored));
    const line = casbinLine(stored);
    const same = (other: StoredRule) => other.kind === 'p' && casbinLine(other).join('\u0000') === line.join('\u0000');
    if (stored.values[3] !== 'own') await this.enforcers.all.removePolicy(...line);
    if (!this.rules.some(same)) await this.enforcers.any.removePolicy(...line);
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
