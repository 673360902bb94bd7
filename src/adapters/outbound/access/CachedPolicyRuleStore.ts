import type { Cache } from '../../../application/ports/Cache.js';
import type { GuardedRemoval, PolicyRuleStore, Replacement, StoredRule } from './PolicyRuleStore.js';

/** The one key the stored access rules are cached under. */
export const RULES_KEY = 'access-rules';

/**
 * The stored access rules loaded through the shared cache (ADR 0042): `load` answers the cached
 * rules or reads them (through `fresh`: never from a lagging replica), and every write forgets them
 * on every instance before it is answered. The enforcer that each instance builds from the rules is
 * what requests ask; an instance told of a change by another (`syncAccessPolicy`) calls `forget`
 * before it reloads, as the change's message and the cache's own may arrive in either order.
 */
export class CachedPolicyRuleStore implements PolicyRuleStore {
  constructor(
    private readonly inner: PolicyRuleStore,
    private readonly cache: Cache,
    private readonly ttlMs: number,
    private readonly fresh: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
  ) {}

  async load(): Promise<StoredRule[] | undefined> {
    const rules = await this.cache.getOrSet<StoredRule[]>(RULES_KEY, () => this.fresh(() => this.inner.load()), {
      ttlMs: this.ttlMs,
    });
    return rules?.map((rule) => ({ kind: rule.kind, values: [...rule.values] }));
  }

  /** Forgets the cached rules here and on every instance. */
  forget(): Promise<void> {
    return this.cache.delete(RULES_KEY);
  }

  seed(rules: readonly StoredRule[]): Promise<void> {
    return this.forgetting(() => this.inner.seed(rules));
  }

  add(rule: StoredRule): Promise<boolean> {
    return this.forgetting(() => this.inner.add(rule));
  }

  remove(rule: StoredRule): Promise<boolean> {
    return this.forgetting(() => this.inner.remove(rule));
  }

  removeIf(rule: StoredRule, allowed: (rest: StoredRule[]) => Promise<boolean>): Promise<GuardedRemoval> {
    return this.forgetting(() => this.inner.removeIf(rule, allowed));
  }

  replaceAll(rules: readonly StoredRule[]): Promise<Replacement> {
    return this.forgetting(() => this.inner.replaceAll(rules));
  }

  private async forgetting<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      await this.forget();
    }
  }
}
