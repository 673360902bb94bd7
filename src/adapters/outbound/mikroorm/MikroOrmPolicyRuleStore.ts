import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import {
  sameRule,
  type GuardedRemoval,
  type PolicyRuleStore,
  type Replacement,
  type StoredRule,
} from '../access/PolicyRuleStore.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { guarded } from './errors.js';
import { inTransaction } from './transaction.js';
import { AccessRuleSchema, AppMetaSchema, POLICY_SEEDED_KEY } from './schemas/AccessRuleSchema.js';

/** Thrown inside a transaction to roll it back when a guarded removal is refused. */
class Refused extends Error {}

const toRule = (row: { kind: string; v0: string; v1: string; v2: string; scope: string }): StoredRule => ({
  kind: row.kind === 'g' ? 'g' : 'p',
  values:
    row.kind === 'g'
      ? [row.v0, row.v1]
      : row.scope === 'own'
        ? [row.v0, row.v1, row.v2, 'own']
        : [row.v0, row.v1, row.v2],
});

const toRow = (rule: StoredRule) => ({
  kind: rule.kind,
  v0: rule.values[0] ?? '',
  v1: rule.values[1] ?? '',
  v2: rule.values[2] ?? '',
  scope: rule.values[3] === 'own' ? 'own' : 'all',
});

/** Access rules in the `access_rules` table; `app_meta` remembers that the file seeded them once. */
export class MikroOrmPolicyRuleStore extends MikroOrmStore implements PolicyRuleStore {
  load(): Promise<StoredRule[] | undefined> {
    return guarded(this.orm, async () => {
      const em = this.em();
      // On the primary: the rules decide every access, and are loaded again when another instance changed them.
      const seeded = await em.findOne(
        AppMetaSchema,
        { key: POLICY_SEEDED_KEY },
        { disableIdentityMap: true, connectionType: 'write' },
      );
      if (!seeded) return undefined;
      return this.rules(em);
    });
  }

  seed(rules: readonly StoredRule[]): Promise<void> {
    return guarded(this.orm, async () => {
      try {
        await inTransaction(this.orm, async (em) => {
          await em.insert(AppMetaSchema, { key: POLICY_SEEDED_KEY, value: new Date().toISOString() });
          if (rules.length > 0) await em.insertMany(AccessRuleSchema, rules.map(toRow));
        });
      } catch (error) {
        // Another instance seeded first: its rules stand.
        if (!(error instanceof UniqueConstraintViolationException)) throw error;
      }
    });
  }

  add(rule: StoredRule): Promise<boolean> {
    return guarded(this.orm, async () => {
      try {
        await this.em().insert(AccessRuleSchema, toRow(rule));
        return true;
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) return false;
        throw error;
      }
    });
  }

  remove(rule: StoredRule): Promise<boolean> {
    return guarded(this.orm, async () => (await this.em().nativeDelete(AccessRuleSchema, toRow(rule))) > 0);
  }

  /**
   * In one transaction that writes first: on PostgreSQL it locks the table against every other
   * writer (SHARE ROW EXCLUSIVE conflicts with itself and with row changes, not with reads); on
   * SQLite the delete takes the database's write lock. The rule is deleted, the rest read back
   * and judged; a refusal rolls the transaction back.
   */
  removeIf(rule: StoredRule, allowed: (rest: StoredRule[]) => Promise<boolean>): Promise<GuardedRemoval> {
    return guarded(this.orm, async () => {
      try {
        return await inTransaction(this.orm, async (em) => {
          await this.lockForWriting(em);
          if ((await em.nativeDelete(AccessRuleSchema, toRow(rule))) === 0) return 'not-found';
          if (!(await allowed(await this.rules(em)))) throw new Refused();
          return 'removed';
        });
      } catch (error) {
        if (error instanceof Refused) return 'kept';
        throw error;
      }
    });
  }

  /** Marks the store seeded first (the write that takes SQLite's lock), then applies the difference. */
  replaceAll(rules: readonly StoredRule[]): Promise<Replacement> {
    return guarded(this.orm, () =>
      inTransaction(this.orm, async (em) => {
        await this.lockForWriting(em);
        await em.execute(
          'insert into app_meta (key, value) values (?, ?) on conflict (key) do nothing',
          [POLICY_SEEDED_KEY, new Date().toISOString()],
          'run',
        );
        const current = await this.rules(em);
        const wanted = rules.filter((rule, i) => rules.findIndex((other) => sameRule(other, rule)) === i);
        const removed = current.filter((rule) => !wanted.some((other) => sameRule(other, rule)));
        const added = wanted.filter((rule) => !current.some((other) => sameRule(other, rule)));
        for (const rule of removed) await em.nativeDelete(AccessRuleSchema, toRow(rule));
        if (added.length > 0) await em.insertMany(AccessRuleSchema, added.map(toRow));
        return { removed, added };
      }),
    );
  }

  private async rules(em: EntityManager): Promise<StoredRule[]> {
    const rows = await em.find(
      AccessRuleSchema,
      {},
      { orderBy: { id: 'asc' }, disableIdentityMap: true, connectionType: 'write' },
    );
    return rows.map(toRule);
  }

  private async lockForWriting(em: EntityManager): Promise<void> {
    if (this.sql.dialect === 'postgresql')
      await em.execute('lock table access_rules in share row exclusive mode', [], 'run');
  }
}
