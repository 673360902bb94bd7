import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { applicationDir, domainDir, importLine, upper, useCaseClasses, useCaseImports } from '../inbound/names.js';

/** `Migration0002Products`: the migration's name and class, as the outbound templates write it. */
export const migrationName = (m: ResourceModel): string =>
  `Migration${String(m.migrationNumber).padStart(4, '0')}${m.names.pluralPascal}`;

/** The constructor arguments of each use case, by its key (the repository is the resource's plural). */
function construction(m: ResourceModel, key: string): string {
  const repository = m.names.pluralCamel;
  if (key === 'create') return `${repository}, ids, clock`;
  if (key === 'update') return `${repository}, clock`;
  return repository;
}

/** `src/main/modules/<plural-camel>.ts`: the resource's feature module, shaped like the products module. */
export function moduleFile(m: ResourceModel): FileContents {
  const { camel, pascal, pluralCamel, human } = m.names;
  const classes = useCaseClasses(m);
  const migration = migrationName(m);
  const imports = [
    "import { ContainerModule } from 'inversify';",
    "import { resourceGraphQL } from '../../adapters/inbound/graphql/resourceGraphQL.js';",
    "import { operationsOf } from '../../adapters/inbound/http/resourceOperations.js';",
    "import { resourceRoutes } from '../../adapters/inbound/http/resourceRoutes.js';",
    `import { ${upper(m)}_INBOUND, type ${pascal}UseCases } from '../../adapters/inbound/${camel}UseCases.js';`,
    importLine([migration], `../../adapters/outbound/mikroorm/migrations/${migration}.js`),
    importLine([`Sql${pascal}Repository`], `../../adapters/outbound/mikroorm/Sql${pascal}Repository.js`),
    ...useCaseImports(m).map(({ name }) => importLine([name], `../../${applicationDir(m)}/${name}.js`)),
    importLine([`${pascal}Repository`], `../../${domainDir(m)}/${pascal}Repository.js`, true),
    "import { token, TOKENS } from '../tokens.js';",
    "import { bindBuilt, built } from './built.js';",
    "import type { FeatureModule } from './FeatureModule.js';",
  ];
  const useCases = classes.map(({ key, name }) => `          ${key}: new ${name}(${construction(m, key)}),`).join('\n');
  return {
    path: `src/main/modules/${pluralCamel}.ts`,
    contents: `${imports.join('\n')}

export const ${pascal}Tokens = {
  Repository: token<${pascal}Repository>('${pluralCamel}.Repository'),
  UseCases: token<${pascal}UseCases>('${pluralCamel}.UseCases'),
} as const;

/** The ${human.toLowerCase()} resource: its repository, use cases, table, REST routes and GraphQL fragment. */
export const ${pluralCamel}: FeatureModule = {
  name: '${pluralCamel}',
  bindings: new ContainerModule(({ bind }) => {
    bindBuilt(
      bind(${pascal}Tokens.Repository),
      built({ database: TOKENS.Database }, ({ database }): ${pascal}Repository => new Sql${pascal}Repository(database)),
    );
    bindBuilt(
      bind(${pascal}Tokens.UseCases),
      built(
        {
          ${pluralCamel}: ${pascal}Tokens.Repository,
          authenticate: TOKENS.Authenticate,
          policy: TOKENS.AccessPolicy,
          ids: TOKENS.IdGenerator,
          clock: TOKENS.Clock,
        },
        ({ ${pluralCamel}, authenticate, policy, ids, clock }): ${pascal}UseCases => ({
          authenticate,
          policy,
${useCases}
        }),
      ),
    );
  }),
  migrations: [{ name: '${migration}', class: ${migration} }],
  rest: {
    always: false,
    operations: Object.values(operationsOf(${upper(m)}_INBOUND.declaration)),
    routes: built({ useCases: ${pascal}Tokens.UseCases }, ({ useCases }) => resourceRoutes(${upper(m)}_INBOUND, useCases)),
  },
  graphql: built({ useCases: ${pascal}Tokens.UseCases }, ({ useCases }) => resourceGraphQL(${upper(m)}_INBOUND, useCases)),
};
`,
  };
}
