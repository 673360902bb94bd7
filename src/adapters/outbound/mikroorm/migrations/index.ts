import type { MigrationObject } from '@mikro-orm/core';

/**
 * Every migration, in order. Listed explicitly (not discovered from the folder) so the same
 * list runs from TypeScript sources and from the compiled build.
 */
export const migrationsList: MigrationObject[] = [];
