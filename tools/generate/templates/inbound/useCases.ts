import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import {
  applicationDir,
  block,
  domainDir,
  importLine,
  upper,
  useCaseClasses,
  useCaseImports,
  withArticle,
} from './names.js';

/** `src/adapters/inbound/<camel>UseCases.ts`: what REST and GraphQL drive, the route paths, the id parser. */
export function useCasesFile(m: ResourceModel): FileContents {
  const { camel, pascal, human, pluralKebab } = m.names;
  const classes = useCaseClasses(m);
  const imports = [
    "import type { Authenticate } from '../../application/auth/Authenticate.js';",
    "import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';",
    ...useCaseImports(m).map(({ name }) => importLine([name], `../../${applicationDir(m)}/${name}.js`, true)),
    importLine([`${pascal}NotFoundError`], `../../${domainDir(m)}/${pascal}Errors.js`),
    "import { idOf } from './ids.js';",
    "import { resourcePaths } from './paths.js';",
  ];
  return {
    path: `src/adapters/inbound/${camel}UseCases.ts`,
    contents: `${imports.join('\n')}

/** What both inbound adapters (REST and GraphQL) drive for the ${human.toLowerCase()} resource. */
export interface ${pascal}UseCases {
  authenticate: Authenticate;
  policy: AccessPolicy;
${block(
  classes.map(({ key, name }) => `${key}: ${name};`),
  2,
)}
}

/** The ${human.toLowerCase()} routes, written once: REST registers them, GraphQL checks the policy against them. */
export const ${upper(m)}_PATHS = resourcePaths('/api/v1/${pluralKebab}');

/** An id that cannot name ${withArticle(human.toLowerCase())} is answered like an unknown one, without a query. */
export const ${camel}Id = (raw: unknown): string => idOf(raw, (id) => new ${pascal}NotFoundError(id));
`,
  };
}
