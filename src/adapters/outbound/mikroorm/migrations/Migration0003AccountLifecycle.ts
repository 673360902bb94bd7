import { Migration } from '@mikro-orm/migrations';

/**
 * Account lifecycle (docs/authentication.md):
 * - `users.email_verified`, false for every existing user;
 * - `sessions`, one row per login, backfilled with one session per existing refresh-token family
 *   (its id is the family's id, so the family's tokens keep working): the family's user, its latest
 *   expiry, ended when any of its tokens was revoked (at the latest revocation), created and last
 *   used at the migration's time (the tokens do not say when they were issued);
 * - `email_tokens`, the single-use tokens sent by e-mail, stored by selector with only a hash of the verifier.
 * Both new tables go with their user (foreign keys on delete cascade).
 */
export class Migration0003AccountLifecycle extends Migration {
  override async up(): Promise<void> {
    const knex = this.getKnex();
    const schema = () => knex.schema;
    this.schema(
      schema().alterTable('users', (t) => {
        t.boolean('email_verified').notNullable().defaultTo(false);
      }),
    );
    this.schema(
      schema().createTable('sessions', (t) => {
        t.string('id', 36).primary();
        t.string('user_id', 36).notNullable();
        t.foreign('user_id', 'sessions_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('last_used_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('ended_at', { useTz: true, precision: 3 }).nullable();
        t.string('user_agent', 500).nullable();
        t.string('ip', 64).nullable();
        t.index(['user_id', 'created_at'], 'sessions_user_id_created_at_index');
      }),
    );
    // The migration's own time, as each engine stores a timestamp (SQLite: milliseconds since the epoch).
    const now = new Date();
    const migratedAt = knex.client.dialect === 'postgresql' ? `'${now.toISOString()}'` : String(now.getTime());
    this.addSql(
      'insert into sessions (id, user_id, created_at, last_used_at, expires_at, ended_at, user_agent, ip) ' +
        `select family_id, min(user_id), ${migratedAt}, ${migratedAt}, max(expires_at), max(revoked_at), null, null ` +
        'from refresh_tokens group by family_id',
    );
    this.schema(
      schema().createTable('email_tokens', (t) => {
        t.string('selector', 64).primary();
        t.string('verifier_hash', 128).notNullable();
        t.string('user_id', 36).notNullable();
        t.foreign('user_id', 'email_tokens_user_id_foreign').references('users.id').onDelete('CASCADE');
        t.string('purpose', 32).notNullable();
        t.string('email', 254).notNullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('expires_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('spent_at', { useTz: true, precision: 3 }).nullable();
        t.index(['user_id', 'purpose', 'created_at'], 'email_tokens_user_id_purpose_created_at_index');
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
    for (const table of ['email_tokens', 'sessions']) this.schema(schema().dropTableIfExists(table));
    // Both engines drop a column in place (SQLite since 3.35); knex would rebuild the SQLite table.
    this.addSql('alter table users drop column email_verified');
  }
}
