import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { useCasesFile } from './useCases.js';

/**
 * The inbound adapter file of a resource: what it serves and drives. Its REST routes, bodies, wire
 * form, API document entries and GraphQL types come from its declaration, in the shared cores.
 */
export function inboundFiles(m: ResourceModel): FileContents[] {
  return [useCasesFile(m)];
}
