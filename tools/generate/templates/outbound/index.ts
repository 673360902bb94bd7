import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { memoryRepositoryFile } from './memoryRepositoryFile.js';
import { migrationFile } from './migrationFile.js';
import { sqlRepositoryFile } from './sqlRepositoryFile.js';

export { accessGrants } from './migrationFile.js';
export { migrationName, upperOf } from './source.js';

/** The outbound adapters of a resource: its SQL repository (with its table, from the declaration), memory repository and migration. */
export function outboundFiles(m: ResourceModel): FileContents[] {
  return [sqlRepositoryFile(m), memoryRepositoryFile(m), migrationFile(m)];
}
