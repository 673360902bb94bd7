import { Database, type DatabaseOptions } from '../../src/adapters/outbound/mikroorm/database.js';
import { discoverMigrations } from '../../src/adapters/outbound/mikroorm/migrationFiles.js';
import { moduleEntities } from '../../src/main/infrastructure/database.js';
import { pooledPostgres } from './env.js';

/**
 * A database at `url` mapping what the service maps: every feature module's entities
 * (MODULES) and every migration file (discovered as the service finds them), with the service's default bound of 5 s on each call unless given; through
 * a transaction pooler, set as the README says (see `pooledPostgres`).
 */
export async function connectDatabase(url: string, options: Partial<DatabaseOptions> = {}): Promise<Database> {
  const pooled = pooledPostgres(url);
  return Database.connect(url, {
    queryTimeoutMs: 5000,
    entities: moduleEntities(),
    migrations: options.migrations ?? (await discoverMigrations()),
    ...(pooled ? { preparedStatements: false, migrationUrl: pooled.migrationUrl } : {}),
    ...options,
  });
}
