import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import type { PolicyRuleStore, StoredRule } from '../access/PolicyRuleStore.js';
import { guarded } from './errors.js';
import { AccessRuleSchema, AppMetaSchema } from './schemas/AccessRuleSchema.js';

const SEEDED = 'access_policy_seeded';

const toRow = (rule: StoredRule) => ({ kind: rule.kind, v0: rule.values[0] ?? '', v1: rule.values[1] ?? '', v2: rule.values[2] ?? '' });

/** Access rules in the `access_rules` table; `app_meta` remembers that the file seeded them once. */
export class MikroOrmPolicyRuleStore implements PolicyRuleStore {
  constructor(private readonly orm: MikroORM) {}

  private em(): EntityManager {
    return this.orm.em.fork() as EntityManager;
  }

  load(): Promise<StoredRule[] | undefined> {
    return guarded(this.orm, async () => {
      const em = this.em();
      if (!(await em.findOne(AppMetaSchema, { key: SEEDED }, { disableIdentityMap: true }))) return undefined;
      const rows = await em.find(AccessRuleSchema, {}, { orderBy: { id: 'asc' }, disableIdentityMap: true });
      return rows.map((row) => ({
        kind: row.kind === 'g' ? 'g' : 'p',
        values: row.kind === 'g' ? [row.v0, row.v1] : [row.v0, row.v1, row.v2],
      }));
    });
  }

  seed(rules: readonly StoredRule[]): Promise<void> {
    return guarded(this.orm, async () => {
      try {
        await this.em().transactional(async (em) => {
          await em.insert(AppMetaSchema, { key: SEEDED, value: new Date().toISOString() });
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
}
