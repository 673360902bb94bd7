import { Migration } from '@mikro-orm/migrations';

const postgresOf = (migration: Migration): boolean => migration.getKnex().client.dialect === 'postgresql';

/**
 * Background jobs on SQLite (docs/jobs.md): the `jobs` table the SQLite engine (SqlJobs) keeps
 * them in — the payload as JSON text, times as the other tables store them — indexed for taking due
 * jobs (`state, run_at`), for the key's de-duplication (`name, key`) and for the admin's list, newest
 * first (`created_at, id`). On PostgreSQL it does nothing: pg-boss keeps jobs in its own schema.
 */
export class Migration0005Jobs extends Migration {
  override async up(): Promise<void> {
    if (postgresOf(this)) return;
    this.schema(
      this.getKnex().schema.createTable('jobs', (t) => {
        t.string('id', 36).primary();
        t.string('name', 200).notNullable();
        t.text('payload').notNullable();
        t.string('key', 200).nullable();
        t.string('state', 16).notNullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.text('last_error').nullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('run_at', { useTz: true, precision: 3 }).notNullable();
        t.timestamp('started_at', { useTz: true, precision: 3 }).nullable();
        t.timestamp('finished_at', { useTz: true, precision: 3 }).nullable();
        t.index(['state', 'run_at'], 'jobs_state_run_at_index');
        t.index(['name', 'key'], 'jobs_name_key_index');
        t.index(['created_at', 'id'], 'jobs_created_at_id_index');
      }),
    );
  }

  /** Adds a schema builder's statements one by one (SQLite runs one statement per query). */
  private schema(builder: { toSQL(): { sql: string }[] | { sql: string } }): void {
    const statements = builder.toSQL();
    for (const statement of Array.isArray(statements) ? statements : [statements]) this.addSql(statement.sql);
  }

  override async down(): Promise<void> {
    if (postgresOf(this)) return;
    this.schema(this.getKnex().schema.dropTableIfExists('jobs'));
  }
}
