import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { domainDir, upper, withArticle } from './names.js';

/**
 * `src/adapters/inbound/<camel>UseCases.ts`: what REST and GraphQL drive, the resource as they
 * serve it (declaration and 404), the route paths and the id parser. The routes, bodies, wire form
 * and GraphQL types are the shared inbound cores' (resourceRoutes, resourceGraphQL), read off the
 * declaration.
 */
export function useCasesFile(m: ResourceModel): FileContents {
  const { camel, pascal, human } = m.names;
  const U = upper(m);
  const a = human.toLowerCase();
  const refs = m.fields.some((f) => f.ref);
  const parents = refs
    ? `

/** The resources the ${a}'s ref fields name, as its nested routes and GraphQL relation fields are given them. */
export type ${pascal}Parents = ParentsOf<typeof ${U}.fields>;`
    : '';
  return {
    path: `src/adapters/inbound/${camel}UseCases.ts`,
    contents: `import { ${U}, type ${pascal} } from '../../${domainDir(m)}/${pascal}.js';
import { ${pascal}NotFoundError } from '../../${domainDir(m)}/${pascal}Errors.js';
import { idReader, pathsOf, type InboundResource, ${refs ? 'type ParentsOf, ' : ''}type ResourceUseCases } from './resources.js';

/** What both inbound adapters (REST and GraphQL) drive for the ${a} resource. */
export type ${pascal}UseCases = ResourceUseCases<${pascal}, typeof ${U}.fields>;${parents}

/** The ${a} as REST and GraphQL serve it: its declaration, and its 404. */
export const ${U}_INBOUND: InboundResource<typeof ${U}.fields> = {
  declaration: ${U},
  notFound: (id) => new ${pascal}NotFoundError(id),
};

/** The ${a} routes, written once: REST registers them, GraphQL checks the policy against them. */
export const ${U}_PATHS = pathsOf(${U});

/** An id that cannot name ${withArticle(a)} is answered like an unknown one, without a query. */
export const ${camel}Id = idReader(${U}_INBOUND.notFound);
`,
  };
}
