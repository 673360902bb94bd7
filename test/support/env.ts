/**
 * External services for the suites that need them. When the variable is unset the suite says
 * it was skipped; under CI (`CI=true`) a missing variable is a failure, never a silent skip.
 */
export function externalService(
  variable:
    | 'SVC_TEST_POSTGRES_URL'
    | 'SVC_TEST_POSTGRES_REPLICA_URL'
    | 'SVC_TEST_PGBOUNCER_URL'
    | 'SVC_TEST_PGBOUNCER_REPLICA_URL'
    | 'SVC_TEST_REPLICA_CTL'
    | 'SVC_TEST_REDIS_URL'
    | 'SVC_TEST_S3_ENDPOINT'
    | 'SVC_TEST_RGW_CTL',
): string | undefined {
  const value = process.env[variable]?.trim();
  if (value) return value;
  if (process.env.CI === 'true')
    throw new Error(`${variable} must be set when CI=true: the suite that needs it would be skipped`);
  return undefined;
}

/**
 * The direct PostgreSQL URL for `url`'s database when the PostgreSQL suites run through a
 * transaction pooler (`npm run test:pgbouncer`: SVC_TEST_POSTGRES_URL names PgBouncer and
 * SVC_TEST_POSTGRES_DIRECT_URL the server behind it), else `undefined`. There the service runs as
 * the README says to run it behind such a pooler: `database.prepared_statements` false, and
 * migrations taking their lock on the direct connection (`database.migration_url`).
 */
export function pooledPostgres(url: string): { migrationUrl: string } | undefined {
  const direct = process.env.SVC_TEST_POSTGRES_DIRECT_URL?.trim();
  if (!direct || !url.startsWith('postgres')) return undefined;
  const migration = new URL(direct);
  migration.pathname = new URL(url).pathname;
  return { migrationUrl: migration.toString() };
}
