import { loadConfig } from '../../src/main/config/loadConfig.js';
import type { Config } from '../../src/main/config/schema.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pooledPostgres } from './env.js';

/**
 * A validated Config from defaults plus `SVC_*` overrides (no file read but those given, by path), for tests that start
 * the whole service. Defaults for tests: in-memory SQLite, files in the temporary folder, ephemeral ports (the API's and the metrics'), logs off, and load
 * shedding by event-loop delay out of reach — a test machine busy with other work must not turn
 * a test's request into 503 OVERLOADED; the shedding tests set their own limits. Through a
 * transaction pooler, the database settings the README gives for it (see `pooledPostgres`).
 * With SVC_TEST_APP_ON_REPLICAS=1, a test that names no database gets the PostgreSQL primary with
 * its streaming replica instead of SQLite (`onReplicas`).
 */
export function testConfig(env: Record<string, string> = {}, files: Record<string, string> = {}): Config {
  if (env.SVC_DATABASE_URL === undefined) env = { ...onReplicas(), ...env };
  const pooled = env.SVC_DATABASE_URL === undefined ? undefined : pooledPostgres(env.SVC_DATABASE_URL);
  const loaded = loadConfig({
    env: {
      SVC_DATABASE_URL: 'sqlite::memory:',
      SVC_SERVER_PORT: '0',
      SVC_SERVER_HOST: '127.0.0.1',
      SVC_METRICS_PORT: '0',
      SVC_METRICS_HOST: '127.0.0.1',
      SVC_LOG_LEVEL: 'silent',
      SVC_SERVER_MAX_EVENT_LOOP_DELAY: '1h',
      // Files go to a folder of the machine's, never the checkout's data/ (every key is unique).
      SVC_STORAGE_PATH: join(tmpdir(), 'portico-test-files'),
      ...(pooled ? { SVC_DATABASE_PREPARED_STATEMENTS: 'false', SVC_DATABASE_MIGRATION_URL: pooled.migrationUrl } : {}),
      ...env,
    },
    readFile: (path) => (Object.hasOwn(files, path) ? files[path] : undefined),
  });
  if (!loaded.ok) throw new Error(`test config invalid:\n${loaded.errors.join('\n')}`);
  return loaded.config;
}

/**
 * The database settings that put a test's service on the PostgreSQL primary (SVC_TEST_POSTGRES_URL)
 * reading from its replica (SVC_TEST_POSTGRES_REPLICA_URL) when SVC_TEST_APP_ON_REPLICAS is `1`:
 * the end-to-end suites then run with reads on the replica, and must read their own writes. Empty
 * otherwise (SQLite in memory); a switch without both servers is an error, never a silent SQLite.
 */
export function onReplicas(): Record<string, string> {
  if (process.env.SVC_TEST_APP_ON_REPLICAS !== '1') return {};
  const primary = process.env.SVC_TEST_POSTGRES_URL?.trim();
  const replica = process.env.SVC_TEST_POSTGRES_REPLICA_URL?.trim();
  if (!primary || !replica) {
    throw new Error('SVC_TEST_APP_ON_REPLICAS=1 needs SVC_TEST_POSTGRES_URL and SVC_TEST_POSTGRES_REPLICA_URL');
  }
  return { SVC_DATABASE_URL: primary, SVC_DATABASE_REPLICA_URLS: replica };
}
