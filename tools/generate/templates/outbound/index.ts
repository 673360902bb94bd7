import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { memoryRepositoryFile } from './memoryRepositoryFile.js';
import { migrationFile } from './migrationFile.js';
import { sqlRepositoryFile } from './sqlRepositoryFile.js';
import { schemaFile } from './schemaFile.js';

export { accessGrants } from './migrationFile.js';
export { migrationName, upperOf } from './source.js';

/** The outbound adapters of a resource: its table description, SQL and memory repositories, and migration. */
export function outboundFiles(m: ResourceModel): FileContents[] {
  return [schemaFile(m), sqlRepositoryFile(m), memoryRepositoryFile(m), migrationFile(m)];
}
