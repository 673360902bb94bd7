import type { EntitySchema, MigrationObject } from '@mikro-orm/core';
import { Database } from '../../adapters/outbound/mikroorm/database.js';
import type { Config } from '../config/schema.js';
import type { FeatureModule } from '../modules/FeatureModule.js';
import { MODULES } from '../modules/index.js';

/** Every entity schema the feature modules map. */
export function moduleEntities(modules: readonly FeatureModule[] = MODULES): EntitySchema[] {
  return modules.flatMap((module) => module.entities ?? []);
}

/** Every migration of the feature modules, concatenated in module-list order (their names never change). */
export function moduleMigrations(modules: readonly FeatureModule[] = MODULES): MigrationObject[] {
  return modules.flatMap((module) => module.migrations ?? []);
}

export interface OpenDatabaseOptions {
  /** Where the driver's own warnings go; by default nowhere. */
  warn?: (message: string) => void;
}

/** The configured database (`database.url`, its bound on each call), mapping every module's entities and migrations. */
export function openDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<Database> {
  return Database.connect(config.database.url, {
    queryTimeoutMs: config.database.queryTimeoutMs,
    preparedStatements: config.database.preparedStatements,
    ...(config.database.migrationUrl !== '' ? { migrationUrl: config.database.migrationUrl } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
    entities: moduleEntities(),
    migrations: moduleMigrations(),
  });
}
