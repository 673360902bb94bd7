import type { FieldModel, ResourceModel } from '../../model.js';
import type { FileContents } from '../../writer.js';
import { block, domainDir, importLine, refFields, upper, withArticle } from './names.js';

/** A field's REST value: instants in UTC with `Z`, a missing optional value `null`. */
function wireValue(entity: string, f: FieldModel): string {
  const value = `${entity}.${f.camel}`;
  if (f.type === 'datetime') return f.optional ? `${value}?.toISOString() ?? null` : `${value}.toISOString()`;
  return f.optional ? `${value} ?? null` : value;
}

/** The JSON types a resource's fields take on the wire (always strings: id and instants). */
function wireTypes(m: ResourceModel): string {
  const has = (...types: string[]) => m.fields.some((f) => types.includes(f.type));
  return [
    'string',
    ...(has('integer', 'number') ? ['number'] : []),
    ...(has('boolean') ? ['boolean'] : []),
    ...(m.fields.some((f) => f.optional) ? ['null'] : []),
  ].join(' | ');
}

/** `list`, `search`: a page of the resource, presented. */
const pageBody = (present: string): string =>
  `ctx.body = success(page.items.map(${present}), { meta: pageMeta(page) });`;

/** `api.on(op, handler)`, with `notSearch` ahead of the guards when the resource has `/search` (it is never an id). */
function onItem(op: string, input: string, body: string[], search: boolean): string {
  const handler = `async (ctx${input}) => {\n${block(body, search ? 8 : 6)}\n${search ? '      ' : '    '}}`;
  return search
    ? `    api.on(\n      ${op},\n      ${handler},\n      notSearch,\n    );`
    : `    api.on(${op}, ${handler});`;
}

/** The operations' spec (docs/lists.md): names, paths, bodies, sort fields, search and filters. */
function operationsSpec(m: ResourceModel, filters: string | undefined): string {
  const { pascal, pluralPascal, human, pluralHuman } = m.names;
  return [
    `human: { singular: '${human.toLowerCase()}', plural: '${pluralHuman.toLowerCase()}' },`,
    `pascal: { singular: '${pascal}', plural: '${pluralPascal}' },`,
    `paths: ${upper(m)}_PATHS,`,
    `create: Create${pascal}Body,`,
    `update: Update${pascal}Body,`,
    `sortFields: ${upper(m)}_SORT_FIELDS,`,
    `search: ${m.search ? 'true' : 'false'},`,
    ...(filters ? [`filters: ${filters},`] : []),
  ]
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * `src/adapters/inbound/http/routes/<plural-kebab>.ts`: the resource's wire form, its REST operations
 * (which the router and the API document both read) and the handlers registered under them.
 */
export function routesFile(m: ResourceModel): FileContents {
  const { camel, pascal, pluralKebab } = m.names;
  const entity = camel;
  const present = `present${pascal}`;
  const operations = `${upper(m)}_OPERATIONS`;
  const filters = refFields(m).length > 0 ? `${pascal}Filters` : undefined;
  const imports = [
    "import type Router from '@koa/router';",
    importLine([pascal], `../../../../${domainDir(m)}/${pascal}.js`, true),
    importLine([`${upper(m)}_SORT_FIELDS`], `../../../../${domainDir(m)}/${pascal}Repository.js`),
    importLine(
      [`Create${pascal}Body`, `Update${pascal}Body`, ...(filters ? [filters] : [])],
      `../../codecs/${camel}Codecs.js`,
    ),
    importLine([`${upper(m)}_PATHS`, `${camel}Id`, `type ${pascal}UseCases`], `../../${camel}UseCases.js`),
    importLine(['ifMatchVersions', ...(m.search ? ['notSearch'] : []), 'withETag'], '../conditional.js'),
    "import { success } from '../envelope.js';",
    "import { RestRoutes } from '../operations.js';",
    "import { pageMeta } from '../presenters.js';",
    "import { resourceOperations } from '../resourceOperations.js';",
    "import type { RequestState } from '../state.js';",
  ];
  const searchRoute = m.search
    ? `
    // Registered before \`/:id\`, so \`search\` is never taken for an id.
    api.on(ops.search, async (ctx, { query }) => {
      const page = await useCases.search.execute({ ...query, q: query.q ?? '' });
      ${pageBody(present)}
    });
`
    : '';
  const update = onItem(
    'ops.update',
    ', { body }',
    [
      `const id = ${camel}Id(ctx.params.id);`,
      "const expectedVersions = ifMatchVersions(ctx.headers['if-match']);",
      `ctx.body = success(withETag(ctx, await useCases.update.execute({ id, changes: body, expectedVersions }), ${present}));`,
    ],
    m.search !== undefined,
  );
  const remove = onItem(
    'ops.remove',
    '',
    [
      `const id = ${camel}Id(ctx.params.id);`,
      "await useCases.remove.execute({ id, expectedVersions: ifMatchVersions(ctx.headers['if-match']) });",
      'ctx.status = 204;',
    ],
    m.search !== undefined,
  );
  return {
    path: `src/adapters/inbound/http/routes/${pluralKebab}.ts`,
    contents: `${imports.join('\n')}

/** ${withArticle(m.names.human.toLowerCase()).replace(/^a/, 'A')} on the wire. */
export function ${present}(${entity}: ${pascal}): Record<string, ${wireTypes(m)}> {
  return {
    id: ${entity}.id,
${block(
  m.fields.map((f) => `${f.name}: ${wireValue(entity, f)},`),
  4,
)}
    created_at: ${entity}.createdAt.toISOString(),
    updated_at: ${entity}.updatedAt.toISOString(),
  };
}

/** The ${m.names.human.toLowerCase()} operations (docs/lists.md): the router and the API document both read them. */
export const ${operations} = resourceOperations({
${operationsSpec(m, filters)}
});

/**
 * ${upper(m)}_PATHS: the collection (list, create), ${m.search ? '`/search`, ' : ''}\`/:id\` (get, update, delete); token and
 * policy on all. An answer carrying one ${m.names.human.toLowerCase()} carries its version (\`ETag\`); update and delete take \`If-Match\`.
 */
export function ${camel}Routes(useCases: ${pascal}UseCases): (router: Router<RequestState>) => void {
  const ops = ${operations};
  return (router) => {
    const api = new RestRoutes(router, useCases);

    api.on(ops.list, async (ctx, { query }) => {
      const page = await useCases.list.execute(query);
      ${pageBody(present)}
    });

    api.on(ops.create, async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = success(withETag(ctx, await useCases.create.execute(body), ${present}));
    });
${searchRoute}
    api.on(ops.get, async (ctx) => {
      ctx.body = success(withETag(ctx, await useCases.get.execute({ id: ${camel}Id(ctx.params.id) }), ${present}));
    });

${update}

${remove}
  };
}
`,
  };
}
