import { Migration } from '@mikro-orm/migrations';

/** Users, refresh-token families, access rules and database facts. */
export class Migration0001Users extends Migration {
  override async up(): Promise<void> {
    const schema = () => this.getKnex().schema;
    this.schema(
      schema().createTable('users', (t) => {
        t.string('id', 36).primary();
        t.string('email', 254).notNullable().unique({ indexName: 'users_email_unique' });
        t.string('first_name', 100).notNullable();
        t.string('last_name', 100).notNullable();
        t.string('role', 50).notNullable();
        t.string('password_hash', 100).notNullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
        t.index(['created_at', 'id'], 'users_created_at_id_index');
        t.index(['first_name', 'id'], 'users_first_name_id_index');
        t.index(['last_name', 'id'], 'users_last_name_id_index');
      }),
    );
    this.schema(
      schema().createTable('refresh_tokens', (t) => {
        t.string('id', 36).primary();
        t.string('family_id', 36).notNullable().index('refresh_tokens_family_id_index');
        t.string('user_id', 36).notNullable().index('refresh_tokens_user_id_index');
        t.foreign('user_id', 'refresh_tokens_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('consumed_at', { useTz: true, precision: 3 }).nullable();
        t.timestamp('revoked_at', { useTz: true, precision: 3 }).nullable();
      }),
    );
    this.schema(
      schema().createTable('access_rules', (t) => {
        t.increments('id').primary();
        t.string('kind', 1).notNullable();
        t.string('v0', 200).notNullable();
        t.string('v1', 200).notNullable();
        t.string('v2', 200).notNullable().defaultTo('');
        t.unique(['kind', 'v0', 'v1', 'v2'], { indexName: 'access_rules_line_unique' });
      }),
    );
    this.schema(
      schema().createTable('app_meta', (t) => {
        t.string('key', 100).primary();
        t.string('value', 1000).notNullable();
      }),
    );
  }

  /** Adds a schema builder's statements one by one (SQLite runs one statement per query). */
  private schema(builder: { toSQL(): { sql: string }[] | { sql: string } }): void {
    const statements = builder.toSQL();
    for (const statement of Array.isArray(statements) ? statements : [statements]) this.addSql(statement.sql);
  }

  override async down(): Promise<void> {
    const schema = () => this.getKnex().schema;
    for (const table of ['app_meta', 'access_rules', 'refresh_tokens', 'users'])
      this.schema(schema().dropTableIfExists(table));
  }
}
