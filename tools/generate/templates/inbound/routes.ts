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

/** `src/adapters/inbound/http/routes/<plural-kebab>.ts`: the resource's REST routes and its wire form. */
export function routesFile(m: ResourceModel): FileContents {
  const { camel, pascal, pluralKebab } = m.names;
  const entity = camel;
  const present = `present${pascal}`;
  const filters = refFields(m).length > 0 ? `${pascal}Filters` : undefined;
  const listOptions = (search: boolean): string => {
    const options = [...(search ? ["search: 'required'"] : []), ...(filters ? [`filters: ${filters}`] : [])];
    return options.length === 0 ? '' : `, { ${options.join(', ')} }`;
  };
  const notSearch = m.search ? 'notSearch, ' : '';
  const imports = [
    "import type Router from '@koa/router';",
    importLine([pascal], `../../../../${domainDir(m)}/${pascal}.js`, true),
    importLine([`${upper(m)}_SORT_FIELDS`], `../../../../${domainDir(m)}/${pascal}Repository.js`),
    "import { decodeBody } from '../../codecs/fields.js';",
    "import { decodeListQuery } from '../../codecs/listCodecs.js';",
    importLine([`Create${pascal}Body`, `Update${pascal}Body`, ...(filters ? [filters] : [])], `../../codecs/${camel}Codecs.js`),
    importLine([`${upper(m)}_PATHS`, `${camel}Id`, `type ${pascal}UseCases`], `../../${camel}UseCases.js`),
    importLine(['ifMatchVersions', ...(m.search ? ['notSearch'] : []), 'withETag'], '../conditional.js'),
    "import { success } from '../envelope.js';",
    "import { authenticate } from '../middleware/authenticate.js';",
    "import { authorize } from '../middleware/authorize.js';",
    "import { pageMeta } from '../presenters.js';",
    "import type { RequestState } from '../state.js';",
  ];
  const searchRoute = m.search
    ? `
    // Registered before \`/:id\`, so \`search\` is never taken for an id.
    router.get(search, ...guard(search), async (ctx) => {
      const query = decodeListQuery(ctx.query, ${upper(m)}_SORT_FIELDS${listOptions(true)});
      const page = await useCases.search.execute({ ...query, q: query.q ?? '' });
      ctx.body = success(page.items.map(${present}), { meta: pageMeta(page) });
    });
`
    : '';
  return {
    path: `src/adapters/inbound/http/routes/${pluralKebab}.ts`,
    contents: `${imports.join('\n')}

/** ${withArticle(m.names.human.toLowerCase()).replace(/^a/, 'A')} on the wire. */
export function ${present}(${entity}: ${pascal}): Record<string, ${wireTypes(m)}> {
  return {
    id: ${entity}.id,
${block(m.fields.map((f) => `${f.name}: ${wireValue(entity, f)},`), 4)}
    created_at: ${entity}.createdAt.toISOString(),
    updated_at: ${entity}.updatedAt.toISOString(),
  };
}

/**
 * ${upper(m)}_PATHS: the collection (list, create), ${m.search ? '`/search`, ' : ''}\`/:id\` (get, update, delete); token and
 * policy on all. An answer carrying one ${m.names.human.toLowerCase()} carries its version (\`ETag\`); update and delete take \`If-Match\`.
 */
export function ${camel}Routes(useCases: ${pascal}UseCases): (router: Router<RequestState>) => void {
  const auth = authenticate(useCases.authenticate);
  const guard = (pattern: string) => [auth, authorize(useCases.policy, pattern)] as const;
  const { collection, ${m.search ? 'search, ' : ''}item } = ${upper(m)}_PATHS;

  return (router) => {
    router.get(collection, ...guard(collection), async (ctx) => {
      const page = await useCases.list.execute(decodeListQuery(ctx.query, ${upper(m)}_SORT_FIELDS${listOptions(false)}));
      ctx.body = success(page.items.map(${present}), { meta: pageMeta(page) });
    });

    router.post(collection, ...guard(collection), async (ctx) => {
      const body = decodeBody(Create${pascal}Body, ctx.request.body);
      ctx.status = 201;
      ctx.body = success(withETag(ctx, await useCases.create.execute(body), ${present}));
    });
${searchRoute}
    router.get(item, ...guard(item), async (ctx) => {
      ctx.body = success(withETag(ctx, await useCases.get.execute({ id: ${camel}Id(ctx.params.id) }), ${present}));
    });

    router.put(item, ${notSearch}...guard(item), async (ctx) => {
      const id = ${camel}Id(ctx.params.id);
      const changes = decodeBody(Update${pascal}Body, ctx.request.body);
      const expectedVersions = ifMatchVersions(ctx.headers['if-match']);
      ctx.body = success(withETag(ctx, await useCases.update.execute({ id, changes, expectedVersions }), ${present}));
    });

    router.delete(item, ${notSearch}...guard(item), async (ctx) => {
      const id = ${camel}Id(ctx.params.id);
      await useCases.remove.execute({ id, expectedVersions: ifMatchVersions(ctx.headers['if-match']) });
      ctx.status = 204;
    });
  };
}
`,
  };
}
