// `npm run test:pgbouncer`: the PostgreSQL suites (the SQL adapters' contract suites, the
// executor, migrations and their lock, end to end, two instances, tracing) a second time, through
// a PgBouncer in transaction mode, with the service set as the README says to run it there
// (`database.prepared_statements` false, `database.migration_url` direct: test/support/env.ts).
// Needs SVC_TEST_POSTGRES_URL (the server) and SVC_TEST_PGBOUNCER_URL (the pooler in front of it),
// as `.ci/services.sh start` prints them.
import { spawnSync } from 'node:child_process';
import process from 'node:process';

const direct = process.env.SVC_TEST_POSTGRES_URL;
const pooler = process.env.SVC_TEST_PGBOUNCER_URL;
if (!direct || !pooler) {
  process.stderr.write(
    'test:pgbouncer needs SVC_TEST_POSTGRES_URL and SVC_TEST_PGBOUNCER_URL (eval "$(bash .ci/services.sh start)")\n',
  );
  process.exit(2);
}
const suites = [
  'test/adapters/outbound/**/*.test.ts',
  'test/resources/*.test.ts',
  'test/e2e/twoInstances.test.ts',
  'test/e2e/tracing.test.ts',
  'test/e2e/noContextTracking.test.ts',
];
const result = spawnSync('npx', ['mocha', '--grep', 'PostgreSQL', ...suites], {
  stdio: 'inherit',
  env: { ...process.env, SVC_TEST_POSTGRES_URL: pooler, SVC_TEST_POSTGRES_DIRECT_URL: direct },
});
process.exit(result.status ?? 1);
