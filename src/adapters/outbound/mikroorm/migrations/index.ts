import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001Users } from './Migration0001Users.js';
import { Migration0002Products } from './Migration0002Products.js';

/**
 * Every migration, in order. Listed explicitly (not discovered from the folder) so the same
 * list runs from TypeScript sources and from the compiled build.
 */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration0001Users', class: Migration0001Users },
  { name: 'Migration0002Products', class: Migration0002Products },
];
