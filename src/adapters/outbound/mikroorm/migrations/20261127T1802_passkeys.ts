import { Migration } from '@mikro-orm/migrations';

/**
 * Passkeys (docs/authentication.md):
 * - `users.has_passkey`, false for every existing user: read with the user on every request, like
 *   `mfa_enabled`, so `auth.mfa.required_roles` and the sign-in gate cost no query of their own;
 * - `passkeys`: a user's WebAuthn credentials — the credential id (base64url, unique), the public
 *   key (COSE, base64url), the signature counter last seen, transports, device type, backed up,
 *   a name, when it was made and last used;
 * - `passkey_challenges`: the challenges of registration and sign-in ceremonies, by selector, only
 *   the verifier's hash (the challenge itself is never stored); a sign-in's is bound to no user.
 * The new tables go with their user (foreign keys on delete cascade). Existing rows are kept.
 */
export class Migration20261127T1802Passkeys extends Migration {
  override async up(): Promise<void> {
    const schema = () => this.getKnex().schema;
    this.schema(
      schema().alterTable('users', (t) => {
        t.boolean('has_passkey').notNullable().defaultTo(false);
      }),
    );
    this.schema(
      schema().createTable('passkeys', (t) => {
        t.string('id', 36).primary();
        t.string('user_id', 36).notNullable();
        t.foreign('user_id', 'passkeys_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.string('credential_id', 1400).notNullable();
        t.unique(['credential_id'], { indexName: 'passkeys_credential_id_unique' });
        t.text('public_key').notNullable();
        t.bigInteger('counter').notNullable().defaultTo(0);
        t.string('transports', 200).notNullable().defaultTo('');
        t.string('device_type', 20).notNullable();
        t.boolean('backed_up').notNullable().defaultTo(false);
        t.string('name', 100).notNullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('last_used_at', { useTz: true, precision: 3 }).nullable();
        t.index(['user_id'], 'passkeys_user_id_index');
      }),
    );
    this.schema(
      schema().createTable('passkey_challenges', (t) => {
        t.string('selector', 64).primary();
        t.string('verifier_hash', 128).notNullable();
        t.string('purpose', 20).notNullable();
        t.string('user_id', 36).nullable();
        t.foreign('user_id', 'passkey_challenges_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('spent_at', { useTz: true, precision: 3 }).nullable();
        t.index(['expires_at'], 'passkey_challenges_expires_at_index');
      }),
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists passkey_challenges');
    this.addSql('drop table if exists passkeys');
    // Both engines drop a column in place (SQLite since 3.35).
    this.addSql('alter table users drop column has_passkey');
  }

  /** Adds a schema builder's statements one by one (SQLite runs one statement per query). */
  private schema(builder: { toSQL(): { sql: string }[] | { sql: string } }): void {
    const statements = builder.toSQL();
    for (const statement of Array.isArray(statements) ? statements : [statements]) this.addSql(statement.sql);
  }
}
