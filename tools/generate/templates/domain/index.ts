import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { entityFile } from './entity.js';

/**
 * The domain file of a resource: its declaration and entity class. Its errors (`<Pascal>.errors`),
 * repository port and use cases are the shared cores' (src/domain/shared, src/application/resources).
 */
export function domainFiles(m: ResourceModel): FileContents[] {
  return [entityFile(m)];
}
