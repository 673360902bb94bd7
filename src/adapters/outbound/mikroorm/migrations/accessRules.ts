import type { Migration } from '@mikro-orm/migrations';
import { POLICY_SEEDED_KEY } from '../schemas/AccessRuleSchema.js';

/** One access rule a resource's migration grants: the policy line `p, <role>, <path>, <action>[, <scope>]`. */
export interface AccessGrant {
  readonly role: string;
  readonly path: string;
  readonly action: string;
  /** `own`: only the caller's rows of an owned resource; absent or `all`: every row. */
  readonly scope?: 'all' | 'own';
}

/**
 * Adds a new resource's access rules to a database that already exists. Its policy was seeded
 * from policy/policy.csv once and lives in `access_rules` since (the file is not read again), so
 * the lines appended to the file for the resource reach it only this way. Each rule is added only
 * when the database has been seeded (`app_meta`) and only unless that role already has a rule for
 * that path (an administrator's choice stands, and nothing is duplicated). A fresh database gets
 * nothing here: it is seeded from the file afterwards, which lists the same rules.
 */
export function grantResourceAccess(migration: Migration, grants: readonly AccessGrant[]): void {
  const knex = migration.getKnex();
  for (const { role, path, action, scope } of grants) {
    // An `all` rule is written as before rules had a scope (the column's default), so the
    // migrations from before it still run on a fresh database.
    const own = scope === 'own';
    migration.addSql(
      knex.raw(
        `insert into access_rules (kind, v0, v1, v2${own ? ', scope' : ''}) select 'p', ?, ?, ?${own ? ", 'own'" : ''}
where exists (select 1 from app_meta where key = ?)
  and not exists (select 1 from access_rules where kind = 'p' and v0 = ? and v1 = ?)`,
        [role, path, action, POLICY_SEEDED_KEY, role, path],
      ),
    );
  }
}

/**
 * Takes back a resource's access rules from a database that already exists — the rules of a route
 * that is gone (a nested list whose reference was removed): every rule of that role for that path.
 */
export function revokeResourceAccess(migration: Migration, grants: readonly AccessGrant[]): void {
  const knex = migration.getKnex();
  for (const { role, path } of grants)
    migration.addSql(knex.raw(`delete from access_rules where kind = 'p' and v0 = ? and v1 = ?`, [role, path]));
}
