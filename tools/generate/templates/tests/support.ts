import type { FieldModel, ResourceModel, ResourceNames } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { domainSamples, graphqlSamples, invalidSamples, quoted, restSamples } from './samples.js';

/** The resources a model references, each once, in field order. */
export function referencedResources(m: ResourceModel): ResourceNames[] {
  const seen = new Map<string, ResourceNames>();
  for (const field of m.fields) if (field.ref && !seen.has(field.ref.snake)) seen.set(field.ref.snake, field.ref);
  return [...seen.values()];
}

/** The path of a resource's test descriptor: `test/support/resources/<snake>.ts`. */
export const supportPath = (names: ResourceNames): string => `test/support/resources/${names.snake}.ts`;

/** The upper snake name of the resource's route paths constant (`PRODUCT_PATHS`). */
export const pathsConstant = (names: ResourceNames): string => `${names.snake.toUpperCase()}_PATHS`;

const indent = (lines: readonly string[], spaces: number): string =>
  lines.map((line) => `${' '.repeat(spaces)}${line}`).join('\n');

/** One field of the REST/GraphQL descriptor. */
function fieldEntry(f: FieldModel): string[] {
  const [a, b] = restSamples(f);
  const gql = graphqlSamples(f);
  const invalid = invalidSamples(f).map(
    (i) => `{ value: ${i.value}, message: ${quoted(i.message)}${i.restOnly ? ', restOnly: true' : ''} },`,
  );
  return [
    '{',
    `  name: ${quoted(f.name)},`,
    `  graphql: ${quoted(f.camel)},`,
    `  kind: ${quoted(f.type)},`,
    `  optional: ${f.optional},`,
    `  sortable: ${f.sortable},`,
    `  samples: [${a}, ${b}],`,
    ...(gql ? [`  graphqlSamples: [${gql[0]}, ${gql[1]}],`] : []),
    '  invalid: [',
    ...invalid.map((line) => `    ${line}`),
    '  ],',
    ...(f.ref ? [`  ref: () => ${f.ref.camel}Resource,`] : []),
    '},',
  ];
}

/** A field's value in the domain's valid input: its first sample, or the referenced row's id. */
const inputValue = (f: FieldModel, which: 0 | 1): string => (f.ref ? 'REFERENCED_ID' : domainSamples(f)[which]);

/**
 * `test/support/resources/<snake>.ts`: what the shared suites (test/support/resource/) need to know
 * about the resource, declared once from its model and used by every one of its test files.
 */
export function supportFile(m: ResourceModel): FileContents {
  const { snake, pascal, camel, pluralCamel, human } = m.names;
  const referenced = referencedResources(m);
  const imports = [
    `import { ${pathsConstant(m.names)} } from '../../../src/adapters/inbound/${camel}UseCases.js';`,
    `import { InMemory${pascal}Repository } from '../../../src/adapters/outbound/memory/InMemory${pascal}Repository.js';`,
    `import { ${pascal} } from '../../../src/domain/${snake}/${pascal}.js';`,
    `import { ${pascal}NotFoundError, ${pascal}VersionMismatchError } from '../../../src/domain/${snake}/${pascal}Errors.js';`,
    `import { GENERATED_POLICY, type ResourceUnderTest } from '../resource/descriptor.js';`,
    ...(referenced.length > 0 ? [`import { REFERENCED_ID } from '../resource/repository.js';`] : []),
    `import type { EntityUnderTest } from '../resource/useCases.js';`,
    ...referenced.map(
      (r) => `import { a${r.pascal}, ${r.camel}Resource, fresh${r.pascal}Repository } from './${r.snake}.js';`,
    ),
  ].sort((x, y) => (x.slice(x.indexOf("'")) < y.slice(y.indexOf("'")) ? -1 : 1));
  const input = m.fields.map((f) => `${f.camel}: ${inputValue(f, 0)},`);
  const changes = m.fields.filter((f) => !f.ref).map((f) => `${f.camel}: ${domainSamples(f)[1]},`);
  const domainInvalid = m.fields.flatMap((f) =>
    invalidSamples(f).flatMap((i) =>
      i.domain === undefined
        ? []
        : [
            `{ prop: ${quoted(f.camel)}, field: ${quoted(f.name)}, value: ${i.domain}, message: ${quoted(i.message)} },`,
          ],
    ),
  );
  const optional = m.fields.filter((f) => f.optional).map((f) => quoted(f.camel));
  const freshBody =
    referenced.length === 0
      ? [`return new InMemory${pascal}Repository();`]
      : [
          ...referenced.flatMap((r) => [
            `const ${r.pluralCamel} = await fresh${r.pascal}Repository();`,
            `await ${r.pluralCamel}.add(a${r.pascal}(REFERENCED_ID));`,
          ]),
          `return new InMemory${pascal}Repository(${referenced.map((r) => r.pluralCamel).join(', ')});`,
        ];
  const contents = `${imports.join('\n')}

/** ${m.names.pluralHuman} as the shared REST, GraphQL and access control suites test them. */
export const ${camel}Resource: ResourceUnderTest = {
  human: ${quoted(human)},
  collection: ${pathsConstant(m.names)}.collection,
  graphql: { type: ${quoted(pascal)}, one: ${quoted(camel)}, list: ${quoted(pluralCamel)} },
  fields: [
${indent(m.fields.flatMap(fieldEntry), 4)}
  ],
${m.search ? `  search: ${quoted(m.search.name)},\n` : ''}  policy: GENERATED_POLICY,
};

/** A valid create input of the domain${referenced.length > 0 ? '; its references name the rows fresh repositories hold' : ''}. */
export const ${camel}Input = {
${indent(input, 2)}
} as const;

/** A ${human.toLowerCase()} with this id, at version 1. */
export const a${pascal} = (id: string, now = new Date('2026-01-01T00:00:00Z')): ${pascal} => ${pascal}.create({ id, ...${camel}Input }, now);

/** An empty in-memory repository of ${m.names.pluralHuman.toLowerCase()}${referenced.length > 0 ? ', beside the referenced rows the input names' : ''}. */
export async function fresh${pascal}Repository(): Promise<InMemory${pascal}Repository> {
${indent(freshBody, 2)}
}

/** The entity as the shared domain and use case suites test it. */
export const ${camel}Entity: EntityUnderTest<${pascal}> = {
  human: ${quoted(human)},
  // The suites pass refused values too, so the inputs are not typed as the entity's.
  create: (input, now) => ${pascal}.create(input as never, now),
  update: (${camel}, changes, now) => ${camel}.update(changes as never, now),
  requireVersion: (${camel}, versions) => ${camel}.requireVersion(versions),
  input: ${camel}Input,
  changes: {
${indent(changes, 4)}
  },
  optional: [${optional.join(', ')}],
  invalid: [
${indent(domainInvalid, 4)}
  ],
  notFound: ${pascal}NotFoundError,
  versionMismatch: ${pascal}VersionMismatchError,
};
`;
  return { path: supportPath(m.names), contents };
}
