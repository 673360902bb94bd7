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
  const refs = m.fields.flatMap((f) => (f.ref ? [{ field: f, ref: f.ref }] : []));
  const parents = [...new Map(refs.map(({ ref }) => [ref.snake, ref])).values()];
  const imports = [
    "import { ContainerModule } from 'inversify';",
    "import { resourceGraphQL } from '../../adapters/inbound/graphql/resourceGraphQL.js';",
    "import { operationsOf } from '../../adapters/inbound/http/resourceOperations.js';",
    "import { resourceRoutes } from '../../adapters/inbound/http/resourceRoutes.js';",
    ...[
      `import { ${upper(m)}_INBOUND, ${refs.length > 0 ? `type ${pascal}Parents, ` : ''}type ${pascal}UseCases } from '../../adapters/inbound/${camel}UseCases.js';`,
      ...parents.map(
        (p) => `import { ${p.snake.toUpperCase()}_INBOUND } from '../../adapters/inbound/${p.camel}UseCases.js';`,
      ),
    ].sort((a, b) => (a.split(' from ')[1]! < b.split(' from ')[1]! ? -1 : 1)),
    importLine([migration], `../../adapters/outbound/mikroorm/migrations/${migration}.js`),
    importLine([`Sql${pascal}Repository`], `../../adapters/outbound/mikroorm/Sql${pascal}Repository.js`),
    ...useCaseImports(m).map(({ name }) => importLine([name], `../../${applicationDir(m)}/${name}.js`)),
    importLine(
      refs.length > 0 ? ['GetMany', 'ListByReference'] : ['GetMany'],
      '../../application/resources/related.js',
    ),
    importLine([`${pascal}Repository`], `../../${domainDir(m)}/${pascal}Repository.js`, true),
    "import { token, TOKENS } from '../tokens.js';",
    "import { bindBuilt, built } from './built.js';",
    "import type { FeatureModule } from './FeatureModule.js';",
    ...parents.map((p) => `import { ${p.pascal}Tokens } from './${p.pluralCamel}.js';`),
  ];
  const useCases = [
    ...classes.map(({ key, name }) => `          ${key}: new ${name}(${construction(m, key)}),`),
    `          getMany: new GetMany(${pluralCamel}),`,
    ...(refs.length > 0 ? [`          listByReference: new ListByReference(${pluralCamel}),`] : []),
  ].join('\n');
  const wiring =
    refs.length > 0
      ? {
          needs: `{ useCases: ${pascal}Tokens.UseCases, parents: ${pascal}Tokens.Parents }`,
          given: '{ useCases, parents }',
          args: 'useCases, parents',
        }
      : { needs: `{ useCases: ${pascal}Tokens.UseCases }`, given: '{ useCases }', args: 'useCases' };
  const parentsBinding =
    refs.length === 0
      ? ''
      : `
    bindBuilt(
      bind(${pascal}Tokens.Parents),
      built(
        { ${parents.map((p) => `${p.pluralCamel}: ${p.pascal}Tokens.UseCases`).join(', ')} },
        ({ ${parents.map((p) => p.pluralCamel).join(', ')} }): ${pascal}Parents => ({
          ${refs.map(({ field, ref }) => `${field.camel}: { resource: ${ref.snake.toUpperCase()}_INBOUND, useCases: ${ref.pluralCamel} },`).join('\n          ')}
        }),
      ),
    );`;
  return {
    path: `src/main/modules/${pluralCamel}.ts`,
    contents: `${imports.join('\n')}

export const ${pascal}Tokens = {
  Repository: token<${pascal}Repository>('${pluralCamel}.Repository'),
  UseCases: token<${pascal}UseCases>('${pluralCamel}.UseCases'),${
    refs.length > 0
      ? `
  Parents: token<${pascal}Parents>('${pluralCamel}.Parents'),`
      : ''
  }
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
    );${parentsBinding}
  }),
  migrations: [{ name: '${migration}', class: ${migration} }],
  rest: {
    always: false,
    operations: Object.values(operationsOf(${upper(m)}_INBOUND.declaration)),
    routes: built(${wiring.needs}, (${wiring.given}) => resourceRoutes(${upper(m)}_INBOUND, ${wiring.args})),
  },
  graphql: built(${wiring.needs}, (${wiring.given}) => resourceGraphQL(${upper(m)}_INBOUND, ${wiring.args})),
};
`,
  };
}
