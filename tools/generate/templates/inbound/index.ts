import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { codecsFile } from './codecs.js';
import { resolversFile, sdlFile } from './graphql.js';
import { routesFile } from './routes.js';
import { useCasesFile } from './useCases.js';

/** The inbound adapters of a resource: use cases and paths, codecs, REST routes, GraphQL SDL and resolvers. */
export function inboundFiles(m: ResourceModel): FileContents[] {
  return [useCasesFile(m), codecsFile(m), routesFile(m), sdlFile(m), resolversFile(m)];
}
