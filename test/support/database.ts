import { Database, type DatabaseOptions } from '../../src/adapters/outbound/mikroorm/database.js';
import { moduleEntities, moduleMigrations } from '../../src/main/database.js';

/**
 * A database at `url` mapping what the service maps: every feature module's entities and
 * migrations (MODULES), with the service's default bound of 5 s on each call unless given.
 */
export function connectDatabase(url: string, options: Partial<DatabaseOptions> = {}): Promise<Database> {
  return Database.connect(url, {
    queryTimeoutMs: 5000,
    entities: moduleEntities(),
    migrations: moduleMigrations(),
    ...options,
  });
}
