import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { migrationFile } from './migrationFile.js';

export { accessGrants } from './migrationFile.js';
export { migrationName } from './source.js';

/**
 * The outbound file of a resource: the migration that creates its table. Its SQL and memory
 * repositories are the shared cores' (SqlResourceRepository, memoryRepositoryOf), over the table
 * its declaration gives.
 */
export function outboundFiles(m: ResourceModel): FileContents[] {
  return [migrationFile(m)];
}
