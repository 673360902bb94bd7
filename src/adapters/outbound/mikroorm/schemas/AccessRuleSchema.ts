import { EntitySchema } from '@mikro-orm/core';

/** The `access_rules` row: one casbin line (`p` rule or `g` inheritance). */
export interface AccessRuleRow {
  id: number;
  kind: string;
  v0: string;
  v1: string;
  v2: string;
  /** A `p` rule's scope: `all` or `own` (`all` for `g` lines). */
  scope: string;
}

export const AccessRuleSchema = new EntitySchema<AccessRuleRow>({
  name: 'AccessRuleRow',
  tableName: 'access_rules',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    kind: { type: 'string', length: 1 },
    v0: { type: 'string', length: 200 },
    v1: { type: 'string', length: 200 },
    v2: { type: 'string', length: 200 },
    scope: { type: 'string', length: 3, default: 'all' },
  },
});

/** The `app_meta` key whose row says the access policy was seeded from policy/policy.csv (its rules live in `access_rules`). */
export const POLICY_SEEDED_KEY = 'access_policy_seeded';

/** The `app_meta` row: small facts about the database itself (e.g. that the policy was seeded). */
export interface AppMetaRow {
  key: string;
  value: string;
}

export const AppMetaSchema = new EntitySchema<AppMetaRow>({
  name: 'AppMetaRow',
  tableName: 'app_meta',
  properties: {
    key: { type: 'string', primary: true, length: 100 },
    value: { type: 'string', length: 1000 },
  },
});
