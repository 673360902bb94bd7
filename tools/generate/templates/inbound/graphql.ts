import type { FieldModel, FieldType, ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { block, domainDir, enumFields, enumTypeName, importLine, refFields, upper } from './names.js';

/** The GraphQL type of each field type (an enum field has its own enum type). */
const SCALAR: Record<Exclude<FieldType, 'enum'>, string> = {
  string: 'String',
  text: 'String',
  integer: 'Int',
  number: 'Float',
  boolean: 'Boolean',
  datetime: 'DateTime',
  email: 'String',
  uuid: 'ID',
  ref: 'ID',
};

const graphqlType = (m: ResourceModel, f: FieldModel): string =>
  f.type === 'enum' ? enumTypeName(m, f) : SCALAR[f.type];

/** `src/adapters/inbound/graphql/<plural-camel>.graphql`: the resource's types and root fields (README: GraphQL and README: Add a resource). */
export function sdlFile(m: ResourceModel): FileContents {
  const { camel, pascal, pluralCamel } = m.names;
  const fields = (required: (f: FieldModel) => boolean) =>
    m.fields.map((f) => `${f.camel}: ${graphqlType(m, f)}${required(f) ? '!' : ''}`).join(', ');
  const enums = enumFields(m).map(
    (f) => `enum ${enumTypeName(m, f)} { ${(f.values ?? []).map((v) => v.toUpperCase()).join(' ')} }`,
  );
  const listArguments = [
    'pagination: TPaginationInputDto',
    'sort: TSortingInputDto',
    ...(m.search ? ['search: String'] : []),
    ...refFields(m).map((f) => `${f.camel}: ID`),
  ];
  return {
    path: `src/adapters/inbound/graphql/${pluralCamel}.graphql`,
    contents: `${enums.map((e) => `${e}\n`).join('')}type ${pascal} { id: ID!, ${fields((f) => !f.optional)}, createdAt: DateTime!, updatedAt: DateTime! }
type ${pascal}List { data: [${pascal}!]!, pagination: TPaginationObjectDto! }
type ${pascal}Response { status: Int!, message: String, errors: [TCommonAPIErrorDto!], data: ${pascal} }
input Create${pascal}Input { ${fields((f) => !f.optional)} }
input Update${pascal}Input { ${fields(() => false)} }
extend type Query {
  ${camel}(id: ID!): ${pascal}
  ${pluralCamel}(${listArguments.join(', ')}): ${pascal}List!
}
extend type Mutation {
  create${pascal}(input: Create${pascal}Input!): ${pascal}Response!
  update${pascal}(id: ID!, input: Update${pascal}Input!): ${pascal}Response!
  delete${pascal}(id: ID!): TCommonResponseDto!
}
`,
  };
}

/** A field as GraphQL shows it: enum values in upper case; the DateTime scalar serializes instants. */
function graphqlValue(entity: string, f: FieldModel): string {
  const value = `${entity}.${f.camel}`;
  if (f.type === 'enum') return f.optional ? `${value}?.toUpperCase() ?? null` : `${value}.toUpperCase()`;
  return f.optional ? `${value} ?? null` : value;
}

/** `src/adapters/inbound/graphql/<camel>Resolvers.ts`: the resource's fragment, on resolverKit. */
export function resolversFile(m: ResourceModel): FileContents {
  const { camel, pascal, pluralCamel, human } = m.names;
  const e = camel.charAt(0);
  const present = `present${pascal}`;
  const enums = enumFields(m).map((f) => `'${f.camel}'`);
  const input = (argument: string) =>
    enums.length === 0 ? argument : `enumsFromGraphQL(${argument}, [${enums.join(', ')}])`;
  const filters = refFields(m).length > 0 ? `${pascal}Filters` : undefined;
  const kit = [
    'decodeMutationInput',
    ...(enums.length > 0 ? ['enumsFromGraphQL'] : []),
    'guard',
    'listArguments',
    'presentPage',
    'withoutNulls',
    'type GraphQLFragment',
  ];
  const imports = [
    "import { readFileSync } from 'node:fs';",
    importLine([pascal], `../../../${domainDir(m)}/${pascal}.js`, true),
    importLine([`${upper(m)}_SORT_FIELDS`], `../../../${domainDir(m)}/${pascal}Repository.js`),
    importLine(
      [`Create${pascal}Body`, `Update${pascal}Body`, ...(filters ? [filters] : [])],
      `../codecs/${camel}Codecs.js`,
    ),
    importLine([`${upper(m)}_PATHS`, `${camel}Id`, `type ${pascal}UseCases`], `../${camel}UseCases.js`),
    importLine(kit, './resolverKit.js'),
  ];
  const listCall = `listArguments(args, ${upper(m)}_SORT_FIELDS${filters ? `, ${filters}` : ''})`;
  const list = m.search
    ? `          const searching = args.search !== undefined && args.search !== null;
          await guard(context, searching ? paths.search : paths.collection, 'GET');
          const { q, ...page } = ${listCall};
          return presentPage(q === undefined ? await useCases.list.execute(page) : await useCases.search.execute({ ...page, q }), ${present});`
    : `          await guard(context, paths.collection, 'GET');
          return presentPage(await useCases.list.execute(${listCall}), ${present});`;
  const fields = [
    `id: ${e}.id`,
    ...m.fields.map((f) => `${f.camel}: ${graphqlValue(e, f)}`),
    `createdAt: ${e}.createdAt`,
    `updatedAt: ${e}.updatedAt`,
  ];
  return {
    path: `src/adapters/inbound/graphql/${camel}Resolvers.ts`,
    contents: `${imports.join('\n')}

/** The ${human.toLowerCase()} types and root fields, kept as a \`.graphql\` file beside this module (copied into the build). */
const typeDefs = readFileSync(new URL('./${pluralCamel}.graphql', import.meta.url), 'utf8');

const ${present} = (${e}: ${pascal}) => ({
${block(
  fields.map((field) => `${field},`),
  2,
)}
});

/**
 * The ${human.toLowerCase()} resource's GraphQL fragment. Each field is checked as the REST call it mirrors
 * (${upper(m)}_PATHS), then calls a use case and nothing else.
 */
export function ${camel}GraphQL(useCases: ${pascal}UseCases): GraphQLFragment {
  const paths = ${upper(m)}_PATHS.policy;
  return {
    typeDefs,
    resolvers: {
      Query: {
        ${camel}: async (args, context) => {
          await guard(context, paths.item, 'GET');
          return ${present}(await useCases.get.execute({ id: ${camel}Id(args.id) }));
        },
        ${pluralCamel}: async (args, context) => {
${list}
        },
      },
      Mutation: {
        create${pascal}: async (args, context) => {
          await guard(context, paths.collection, 'POST');
          const input = decodeMutationInput(Create${pascal}Body, ${input('args.input')});
          if ('rejected' in input) return input.rejected;
          return { status: 201, message: 'created', errors: null, data: ${present}(await useCases.create.execute(input.value)) };
        },
        update${pascal}: async (args, context) => {
          await guard(context, paths.item, 'PUT');
          const id = ${camel}Id(args.id);
          const changes = decodeMutationInput(Update${pascal}Body, withoutNulls(${input('args.input')}, Update${pascal}Body));
          if ('rejected' in changes) return changes.rejected;
          return { status: 200, message: 'updated', errors: null, data: ${present}(await useCases.update.execute({ id, changes: changes.value })) };
        },
        delete${pascal}: async (args, context) => {
          await guard(context, paths.item, 'DELETE');
          await useCases.remove.execute({ id: ${camel}Id(args.id) });
          return { status: 200, message: 'deleted', errors: null };
        },
      },
    },
  };
}
`,
  };
}
