import { Migration } from '@mikro-orm/migrations';

/**
 * Access rules gain a scope (docs/access-rules.md): `all` (every rule so far) or `own` (only the
 * caller's rows of an owned resource). A rule is its line and its scope, so the one-rule-per-line
 * unique index takes the scope in.
 */
export class Migration20261127T1224AccessRulesScope extends Migration {
  override async up(): Promise<void> {
    this.schema(
      this.getKnex().schema.alterTable('access_rules', (t) => {
        t.string('scope', 3).notNullable().defaultTo('all');
      }),
    );
    this.schema(
      this.getKnex().schema.alterTable('access_rules', (t) => {
        t.dropUnique(['kind', 'v0', 'v1', 'v2'], 'access_rules_line_unique');
        t.unique(['kind', 'v0', 'v1', 'v2', 'scope'], { indexName: 'access_rules_rule_unique' });
      }),
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from access_rules where scope <> 'all'`);
    this.schema(
      this.getKnex().schema.alterTable('access_rules', (t) => {
        t.dropUnique(['kind', 'v0', 'v1', 'v2', 'scope'], 'access_rules_rule_unique');
        t.unique(['kind', 'v0', 'v1', 'v2'], { indexName: 'access_rules_line_unique' });
      }),
    );
    this.schema(this.getKnex().schema.alterTable('access_rules', (t) => t.dropColumn('scope')));
  }

  /** Adds a schema builder's statements one by one (SQLite runs one statement per query). */
  private schema(builder: { toSQL(): { sql: string }[] | { sql: string } }): void {
    const statements = builder.toSQL();
    for (const statement of Array.isArray(statements) ? statements : [statements]) this.addSql(statement.sql);
  }
}
