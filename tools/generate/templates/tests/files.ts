import type { ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { ascendingValues } from './samples.js';
import { referencedResources } from './support.js';
import { upperOf } from '../outbound/source.js';

/** `test/domain/<snake>/<Pascal>.generated.test.ts`: the entity's invariants. */
export function entityTestFile(m: ResourceModel): FileContents {
  const { snake, pascal, camel } = m.names;
  const contents = `import { describeResourceEntity } from '../../support/resource/useCases.js';
import { ${camel}Entity } from '../../support/resources/${snake}.js';

describeResourceEntity(${camel}Entity);
`;
  return { path: `test/domain/${snake}/${pascal}.generated.test.ts`, contents };
}

/** `test/application/<snake>/<Pascal>UseCases.test.ts`: every use case on the memory adapter. */
export function useCasesTestFile(m: ResourceModel): FileContents {
  const { snake, pascal, camel, pluralPascal } = m.names;
  const app = `../../../src/application/${snake}`;
  const classes = [
    ['Create', `Create${pascal}`],
    ['Get', `Get${pascal}`],
    ['List', `List${pluralPascal}`],
    ...(m.search ? [['Search', `Search${pluralPascal}`]] : []),
    ['Update', `Update${pascal}`],
    ['Delete', `Delete${pascal}`],
  ];
  const imports = [...classes]
    .sort((a, b) => (a[1]! < b[1]! ? -1 : 1))
    .map(([, name]) => `import { ${name} } from '${app}/${name}.js';`);
  const contents = `${imports.join('\n')}
import { describeResourceUseCases } from '../../support/resource/useCases.js';
import { ${camel}Entity, fresh${pascal}Repository } from '../../support/resources/${snake}.js';

describeResourceUseCases({
  ...${camel}Entity,
  classes: { ${classes.map(([key, name]) => `${key}: ${name}`).join(', ')} },
  fresh: fresh${pascal}Repository,${m.search ? `\n  search: '${m.search.camel}',` : ''}
});
`;
  return { path: `test/application/${snake}/${pascal}UseCases.test.ts`, contents };
}

/** `test/adapters/outbound/resources/<camel>Repository.test.ts`: the repository contract on memory, SQLite and PostgreSQL. */
export function repositoryTestFile(m: ResourceModel): FileContents {
  const { snake, pascal, camel, pluralSnake, human } = m.names;
  const referenced = referencedResources(m);
  const reference = m.fields.find((f) => f.ref);
  const changed = m.fields.find(
    (f) => f.type === 'integer' || f.type === 'number' || f.type === 'string' || f.type === 'text',
  );
  const changeValue =
    changed === undefined
      ? undefined
      : changed.type === 'string' || changed.type === 'text'
        ? `\`v\${n}\`.slice(0, ${Math.max(changed.bounds.max ?? 200, 1)})`
        : `${ascendingValues(changed)[0]} + (n % 2)`;
  const change =
    changeValue === undefined
      ? `(${camel}, _n, now) => ${camel}.update({}, now)`
      : `(${camel}, n, now) => ${camel}.update({ ${changed!.camel}: ${changeValue} }, now)`;
  const sortable = [
    ...m.fields
      .filter((f) => f.sortable)
      .map(
        (f) =>
          `{ field: '${f.name}', prop: '${f.camel}', optional: ${f.optional}, values: [${ascendingValues(f).join(', ')}] },`,
      ),
    "{ field: 'created_at', prop: 'createdAt', optional: false, values: [at(0), at(1), at(2)] },",
    "{ field: 'updated_at', prop: 'updatedAt', optional: false, values: [at(3), at(4)] },",
  ];
  const imports = [
    "import { mkdtempSync, rmSync } from 'node:fs';",
    "import { tmpdir } from 'node:os';",
    "import { join } from 'node:path';",
    `import { InMemory${pascal}Repository } from '../../../../src/adapters/outbound/memory/InMemory${pascal}Repository.js';`,
    `import { ${upperOf(m.names)}_TABLE, Sql${pascal}Repository } from '../../../../src/adapters/outbound/mikroorm/Sql${pascal}Repository.js';`,
    ...referenced.map(
      (r) =>
        `import { Sql${r.pascal}Repository } from '../../../../src/adapters/outbound/mikroorm/Sql${r.pascal}Repository.js';`,
    ),
    `import { ${pascal}, type ${pascal}Props } from '../../../../src/domain/${snake}/${pascal}.js';`,
    `import type { ${pascal}SortField } from '../../../../src/domain/${snake}/${pascal}Repository.js';`,
    `import { clearResourceTables, insertRows${reference ? ', REFERENCED_ID' : ''} } from '../../../support/resource/repository.js';`,
    `import { ${camel}Input } from '../../../support/resources/${snake}.js';`,
    ...referenced.map(
      (r) => `import { a${r.pascal}, fresh${r.pascal}Repository } from '../../../support/resources/${r.snake}.js';`,
    ),
    "import { SqlDatabaseFixture, sqlTargets } from '../contracts/databases.js';",
    "import { resourceRepositoryContract, type ResourceDescriptor, type ResourceStorage } from '../contracts/resourceRepository.contract.js';",
  ];
  const memoryReferenced = referenced.map((r) => `const ${r.pluralCamel} = await fresh${r.pascal}Repository();`);
  const referencedStorage = (repositories: (r: (typeof referenced)[number]) => string) =>
    reference === undefined
      ? ''
      : `
        referenced: {
          add: async (id) => {
${referenced.map((r) => `            await ${repositories(r)}.add(a${r.pascal}(id));`).join('\n')}
          },
          delete: (id) => ${repositories(reference.ref!)}.delete(id),
        },`;
  const contents = `${imports.join('\n')}

const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

const ${snake.toUpperCase()}: ResourceDescriptor<${pascal}, ${pascal}SortField> = {
  make: (id, values = {}) => ${pascal}.restore({ id, ...${camel}Input, version: 1, createdAt: T0, updatedAt: T0, ...values } as ${pascal}Props),
  propsOf: (${camel}) => ${camel}.toProps() as unknown as Record<string, unknown>,
  change: ${change},
  sortable: [
${sortable.map((line) => `    ${line}`).join('\n')}
  ],${m.search ? `\n  search: '${m.search.camel}',` : ''}${reference ? `\n  reference: { prop: '${reference.camel}', field: '${reference.name}', target: '${reference.ref!.human.toLowerCase()}' },` : ''}
};

describe('${human} repositories (generated)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-${m.names.pluralKebab}-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  resourceRepositoryContract('${pluralSnake} in memory', ${snake.toUpperCase()}, {
    setUp: async () => undefined,
    fresh: async (): Promise<ResourceStorage<${pascal}, ${pascal}SortField>> => {
${memoryReferenced.map((line) => `      ${line}`).join('\n')}${memoryReferenced.length > 0 ? '\n' : ''}      const repository = new InMemory${pascal}Repository(${referenced.map((r) => r.pluralCamel).join(', ')});
      return {
        repository,${referencedStorage((r) => r.pluralCamel)}
        addMany: async (rows) => void (await Promise.all(rows.map((row) => repository.add(row)))),
      };
    },
    tearDown: async () => undefined,
  });

  for (const target of sqlTargets(dir, '${pluralSnake}.sqlite')) {
    const database = new SqlDatabaseFixture(target);
    resourceRepositoryContract(\`${pluralSnake} on \${target.name}\`, ${snake.toUpperCase()}, {
      setUp: () => database.open(),
      fresh: async () => {
        const orm = database.db.orm;
        await clearResourceTables(orm);
        return {
          repository: new Sql${pascal}Repository(database.db),${referencedStorage((r) => `new Sql${r.pascal}Repository(database.db)`)}
          addMany: (rows) => insertRows(orm, ${upperOf(m.names)}_TABLE, rows.map((row) => row.toProps()), !target.name.startsWith('PostgreSQL')),
        };
      },
      tearDown: () => database.close(),
    });
  }
});
`;
  return { path: `test/adapters/outbound/resources/${camel}Repository.test.ts`, contents };
}

/** `test/e2e/resources/<plural-kebab>.test.ts`: REST, GraphQL and access control, end to end. */
export function e2eTestFile(m: ResourceModel): FileContents {
  const { snake, camel } = m.names;
  const contents = `import { describeResourceGraphQL } from '../../support/resource/graphql.js';
import { describeResourceRbac } from '../../support/resource/rbac.js';
import { describeResourceRest } from '../../support/resource/rest.js';
import { ${camel}Resource } from '../../support/resources/${snake}.js';

describeResourceRest(${camel}Resource);
describeResourceGraphQL(${camel}Resource);
describeResourceRbac(${camel}Resource);
`;
  return { path: `test/e2e/resources/${m.names.pluralKebab}.test.ts`, contents };
}
