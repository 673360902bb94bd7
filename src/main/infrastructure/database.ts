import type { EntitySchema } from '@mikro-orm/core';
import { Database } from '../../adapters/outbound/mikroorm/database.js';
import { discoverMigrations } from '../../adapters/outbound/mikroorm/migrationFiles.js';
import type { Config } from '../config/schema.js';
import type { FeatureModule } from '../modules/FeatureModule.js';
import { MODULES } from '../modules/index.js';

/** Every entity schema the feature modules map. */
export function moduleEntities(modules: readonly FeatureModule[] = MODULES): EntitySchema[] {
  return modules.flatMap((module) => module.entities ?? []);
}

export interface OpenDatabaseOptions {
  /** Where the driver's own warnings go; by default nowhere. */
  warn?: (message: string) => void;
}

/**
 * The configured database (`database.url`, its bound on each call), mapping every module's entities;
 * its migrations are every migration file (src/adapters/outbound/mikroorm/migrationFiles.ts).
 */
export async function openDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<Database> {
  return Database.connect(config.database.url, {
    queryTimeoutMs: config.database.queryTimeoutMs,
    preparedStatements: config.database.preparedStatements,
    replicaUrls: config.database.replicaUrls,
    replicaMaxLagMs: config.database.replicaMaxLagMs,
    ...(config.database.migrationUrl !== '' ? { migrationUrl: config.database.migrationUrl } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
    entities: moduleEntities(),
    migrations: await discoverMigrations(),
  });
}
