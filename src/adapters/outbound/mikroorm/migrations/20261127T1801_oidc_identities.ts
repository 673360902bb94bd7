import { Migration } from '@mikro-orm/migrations';

/**
 * Sign-in with an identity provider (docs/authentication.md), every existing row kept:
 * - `identities`: an account's links to identities at providers, one account per (issuer, subject);
 * - `oidc_states`: browser sign-ins under way at a provider, by selector, only the verifier's hash
 *   (the nonce and PKCE verifier only sealed);
 * - `oidc_codes`: finished browser sign-ins waiting for their one-time code, likewise.
 * Identities and codes go with their user (foreign keys on delete cascade). An account an identity
 * provider made has no password: its `password_hash` is empty (the column is unchanged).
 */
export class Migration20261127T1801OidcIdentities extends Migration {
  override async up(): Promise<void> {
    const schema = () => this.getKnex().schema;
    this.schema(
      schema().createTable('identities', (t) => {
        t.string('id', 36).primary();
        t.string('user_id', 36).notNullable();
        t.foreign('user_id', 'identities_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.string('issuer', 500).notNullable();
        t.string('subject', 255).notNullable();
        t.string('email', 254).nullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.unique(['issuer', 'subject'], { indexName: 'identities_issuer_subject_unique' });
        t.index(['user_id'], 'identities_user_id_index');
      }),
    );
    this.schema(
      schema().createTable('oidc_states', (t) => {
        t.string('selector', 64).primary();
        t.string('verifier_hash', 128).notNullable();
        t.string('provider', 64).notNullable();
        t.string('redirect_uri', 2000).notNullable();
        t.string('sealed', 1000).notNullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('spent_at', { useTz: true, precision: 3 }).nullable();
        t.index(['expires_at'], 'oidc_states_expires_at_index');
      }),
    );
    this.schema(
      schema().createTable('oidc_codes', (t) => {
        t.string('selector', 64).primary();
        t.string('verifier_hash', 128).notNullable();
        t.string('user_id', 36).notNullable();
        t.foreign('user_id', 'oidc_codes_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('spent_at', { useTz: true, precision: 3 }).nullable();
        t.index(['expires_at'], 'oidc_codes_expires_at_index');
      }),
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists oidc_codes');
    this.addSql('drop table if exists oidc_states');
    this.addSql('drop table if exists identities');
  }

  /** Adds a schema builder's statements one by one (SQLite runs one statement per query). */
  private schema(builder: { toSQL(): { sql: string }[] | { sql: string } }): void {
    const statements = builder.toSQL();
    for (const statement of Array.isArray(statements) ? statements : [statements]) this.addSql(statement.sql);
  }
}
