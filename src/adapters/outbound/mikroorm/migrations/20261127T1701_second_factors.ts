import { Migration } from '@mikro-orm/migrations';

/**
 * Second factors (docs/authentication.md):
 * - `users.mfa_enabled`, false for every existing user: read with the user on every request, so
 *   `auth.mfa.required_roles` costs no query of its own;
 * - `totp_enrolments`, one per user: the TOTP secret only sealed (AES-GCM under a key from the
 *   configuration), when it was confirmed (null while it waits), the last time step used;
 * - `recovery_codes`: only the keyed hash of each code, and when it was used;
 * - `mfa_challenges`: sign-ins waiting for their second factor, by selector, only the verifier's hash.
 * The new tables go with their user (foreign keys on delete cascade).
 */
export class Migration20261127T1701SecondFactors extends Migration {
  override async up(): Promise<void> {
    const schema = () => this.getKnex().schema;
    this.schema(
      schema().alterTable('users', (t) => {
        t.boolean('mfa_enabled').notNullable().defaultTo(false);
      }),
    );
    this.schema(
      schema().createTable('totp_enrolments', (t) => {
        t.string('user_id', 36).primary();
        t.foreign('user_id', 'totp_enrolments_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.string('sealed_secret', 200).notNullable();
        t.timestamp('confirmed_at', { useTz: true, precision: 3 }).nullable();
        t.integer('last_used_step').nullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
      }),
    );
    this.schema(
      schema().createTable('recovery_codes', (t) => {
        t.string('user_id', 36).notNullable();
        t.foreign('user_id', 'recovery_codes_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.string('code_hash', 64).notNullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('used_at', { useTz: true, precision: 3 }).nullable();
        t.primary(['user_id', 'code_hash'], 'recovery_codes_pkey');
      }),
    );
    this.schema(
      schema().createTable('mfa_challenges', (t) => {
        t.string('selector', 64).primary();
        t.string('verifier_hash', 128).notNullable();
        t.string('user_id', 36).notNullable();
        t.foreign('user_id', 'mfa_challenges_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.string('methods', 40).notNullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('spent_at', { useTz: true, precision: 3 }).nullable();
        t.index(['expires_at'], 'mfa_challenges_expires_at_index');
      }),
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists mfa_challenges');
    this.addSql('drop table if exists recovery_codes');
    this.addSql('drop table if exists totp_enrolments');
    // Both engines drop a column in place (SQLite since 3.35).
    this.addSql('alter table users drop column mfa_enabled');
  }

  /** Adds a schema builder's statements one by one (SQLite runs one statement per query). */
  private schema(builder: { toSQL(): { sql: string }[] | { sql: string } }): void {
    const statements = builder.toSQL();
    for (const statement of Array.isArray(statements) ? statements : [statements]) this.addSql(statement.sql);
  }
}
