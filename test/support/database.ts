import { Database, type DatabaseOptions } from '../../src/adapters/outbound/mikroorm/database.js';
import { moduleEntities, moduleMigrations } from '../../src/main/infrastructure/database.js';
import { pooledPostgres } from './env.js';

/**
 * A database at `url` mapping what the service maps: every feature module's entities and
 * migrations (MODULES), with the service's default bound of 5 s on each call unless given; through
 * a transaction pooler, set as the README says (see `pooledPostgres`).
 */
export function connectDatabase(url: string, options: Partial<DatabaseOptions> = {}): Promise<Database> {
  const pooled = pooledPostgres(url);
  return Database.connect(url, {
    queryTimeoutMs: 5000,
    entities: moduleEntities(),
    migrations: moduleMigrations(),
    ...(pooled ? { preparedStatements: false, migrationUrl: pooled.migrationUrl } : {}),
    ...options,
  });
}
