import pg from 'pg';

/** The advisory lock key of Portico's migrations (any fixed 64-bit number; this one spells "portico"). */
export const MIGRATION_LOCK_KEY = '8097138627241799535';

/**
 * Runs `migrate` while holding PostgreSQL's session-level advisory lock on MIGRATION_LOCK_KEY,
 * taken on a connection of its own to `url`: another instance doing the same waits for the lock,
 * then runs `migrate` itself and finds nothing left to do. The lock lives as long as that session,
 * so `url` must reach PostgreSQL directly or through a session pooler — never a transaction pooler,
 * which would hand the session to someone else (`database.migration_url`). The lock is released
 * whatever `migrate` does, and by the server if this process dies.
 */
export async function withMigrationLock<T>(url: string, migrate: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'portico-migrations' });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await migrate();
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
