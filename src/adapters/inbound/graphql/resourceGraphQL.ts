import type { AccessScope } from '../../../application/ports/AccessPolicy.js';
import type { ListQuery } from '../../../domain/shared/Page.js';
import type {
  FieldDeclaration,
  FieldDeclarations,
  FieldType,
  FieldValues,
  ResourceDeclaration,
  ResourceEntity,
  SortFieldOf,
} from '../../../domain/shared/resource.js';
import type { FileLinks } from '../../../application/files/FileLinks.js';
import type { StoredFile } from '../../../domain/shared/files.js';
import type { Shape } from '../codecs/fields.js';
import { bodiesOf } from '../codecs/resourceCodecs.js';
import { ConflictError } from '../../../domain/shared/DomainError.js';
import {
  commandsOf,
  fileFieldsOf,
  idReader,
  namesOf,
  ownerFor,
  pathsOf,
  relationsOf,
  type InboundResource,
  type ParentResource,
  type ParentsOf,
  type ResourceUseCases,
} from '../resources.js';
import { batchLoad } from './batches.js';
import {
  decodeMutationInput,
  enumsFromGraphQL,
  guard,
  listArguments,
  mutationWrite,
  presentPage,
  withoutNulls,
  type FieldResolver,
  type GraphQLFragment,
  type Resolver,
} from './resolverKit.js';

/**
 * The owner a field of an owned resource is limited to: the caller, when the rule the access check
 * found reaches only their own rows; else none (every row).
 */
const ownerOf = (
  resource: { readonly owned: boolean },
  caller: { readonly userId: string; readonly scope: AccessScope },
): { owner?: string } => ownerFor(resource, caller.scope, caller.userId);

/** The GraphQL type of each field type (an enum field has its own enum type). */
const SCALAR: Record<Exclude<FieldType, 'enum'>, string> = {
  string: 'String',
  text: 'String',
  integer: 'Int',
  number: 'Float',
  decimal: 'Decimal',
  boolean: 'Boolean',
  datetime: 'DateTime',
  date: 'Date',
  email: 'String',
  uuid: 'ID',
  ref: 'ID',
  file: 'File',
};

const pascalOf = (camel: string): string => camel.charAt(0).toUpperCase() + camel.slice(1);

/** `InvoiceStatus`: an enum field's GraphQL type. */
const enumTypeName = (resource: Pick<ResourceDeclaration, 'name' | 'plural'>, key: string): string =>
  `${namesOf(resource).pascal.singular}${pascalOf(key)}`;

const graphqlType = (
  resource: Pick<ResourceDeclaration, 'name' | 'plural'>,
  key: string,
  declaration: FieldDeclaration,
): string => (declaration.type === 'enum' ? enumTypeName(resource, key) : SCALAR[declaration.type]);

/**
 * ` = DRAFT`, ` = "2026-01-01"`: a field's default as the create input shows it (an enum value in
 * upper case, text as a string literal, numbers and booleans as they are); empty without one.
 */
function sdlDefault(declaration: FieldDeclaration): string {
  const value = declaration.defaultValue;
  if (value === undefined || value === null) return '';
  if (declaration.type === 'enum') return ` = ${String(value).toUpperCase()}`;
  if (value instanceof Date) return ` = ${JSON.stringify(value.toISOString())}`;
  return ` = ${JSON.stringify(value)}`;
}

/**
 * A declared resource's SDL (README: GraphQL): its object (with `ownerId` when owned), list and
 * response types, its inputs, an enum type per enum field, and its root fields — `<camel>(id)`,
 * `<plural camel>(pagination, sort, [search], [<ref field>: ID])`, the three mutations, and
 * `<verb><Type>(id)` for each declared command.
 */
export function resourceTypeDefs<F extends FieldDeclarations>(resource: ResourceDeclaration<F>): string {
  const { pascal, camel } = namesOf(resource);
  const T = pascal.singular;
  const entries = Object.entries(resource.fields);
  // A file field is answered (`File`), never set by an input: only an upload sets it.
  const inputs = entries.filter(([, f]) => f.type !== 'file');
  const fields = (required: (f: FieldDeclaration) => boolean, defaults = false, of = entries) =>
    of.map(
      ([key, f]) =>
        `  ${key}: ${graphqlType(resource, key, f)}${required(f) ? '!' : ''}${defaults ? sdlDefault(f) : ''}`,
    );
  const enums = entries
    .filter(([, f]) => f.type === 'enum')
    .map(
      ([key, f]) =>
        `enum ${enumTypeName(resource, key)} {\n${(f.values ?? []).map((v) => `  ${v.toUpperCase()}`).join('\n')}\n}`,
    );
  const listArgs = (without?: string) => [
    'pagination: TPaginationInputDto',
    'sort: TSortingInputDto',
    ...(resource.search !== undefined ? ['search: String'] : []),
    ...entries.filter(([key, f]) => f.type === 'ref' && key !== without).map(([key]) => `${key}: ID`),
  ];
  const relations = relationsOf(resource);
  // `Invoice.customer`, non-null when the reference is required; `Customer.invoices(...)`, the list's arguments.
  const parentFields = relations.map(
    (r) => `  ${r.parentField}: ${namesOf(r.parent).pascal.singular}${resource.fields[r.key]?.nullable ? '' : '!'}`,
  );
  const childLists = relations
    .filter((r) => r.reverse)
    .map(
      (r) =>
        `extend type ${namesOf(r.parent).pascal.singular} {\n  ${camel.plural}(${listArgs(r.key).join(', ')}): ${T}List!\n}`,
    );
  const owner = resource.owned ? ['  ownerId: ID!'] : [];
  return [
    ...enums,
    `type ${T} {\n  id: ID!\n${[...fields((f) => !f.nullable), ...owner, ...parentFields].join('\n')}\n  createdAt: DateTime!\n  updatedAt: DateTime!\n}`,
    `type ${T}List {\n  data: [${T}!]!\n  pagination: TPaginationObjectDto!\n}`,
    `type ${T}Response {\n  status: Int!\n  message: String\n  errors: [TCommonAPIErrorDto!]\n  data: ${T}\n}`,
    // A field with a default may be left out: the input shows the default GraphQL fills in.
    `input Create${T}Input {\n${fields((f) => !f.nullable, true, inputs).join('\n')}\n}`,
    `input Update${T}Input {\n${fields(() => false, false, inputs).join('\n')}\n}`,
    `extend type Query {\n  ${camel.singular}(id: ID!): ${T}\n  ${camel.plural}(${listArgs().join(', ')}): ${T}List!\n}`,
    `extend type Mutation {
  create${T}(input: Create${T}Input!): ${T}Response!
  update${T}(id: ID!, input: Update${T}Input!): ${T}Response!
  delete${T}(id: ID!): TCommonResponseDto!${commandsOf(resource)
    .map((c) => `\n  ${c.mutation}(id: ID!): ${T}Response!`)
    .join('')}
}`,
    ...childLists,
  ].join('\n');
}

/** A declared resource's entity as its GraphQL type shows it: enum values in upper case; the DateTime scalar serializes instants. */
export function graphqlPresenter<F extends FieldDeclarations>(
  resource: ResourceDeclaration<F>,
): (entity: ResourceEntity<F> & FieldValues<F>) => Record<string, unknown> {
  const fields = Object.entries(resource.fields).map(([key, f]) => [key, f.type === 'enum'] as const);
  return (entity) => {
    const values = entity as unknown as Record<string, unknown>;
    const shown: Record<string, unknown> = { id: entity.id };
    for (const [key, isEnum] of fields) {
      const value = values[key] ?? null;
      shown[key] = isEnum && typeof value === 'string' ? value.toUpperCase() : value;
    }
    if (resource.owned) shown.ownerId = entity.ownerId ?? null;
    shown.createdAt = entity.createdAt;
    shown.updatedAt = entity.updatedAt;
    return shown;
  };
}

/**
 * A declared resource's GraphQL fragment. Each field is checked as the REST call it mirrors (the
 * resource's paths), then calls a use case and nothing else.
 */
export function resourceGraphQL<F extends FieldDeclarations, E extends ResourceEntity<F> & FieldValues<F>>(
  resource: InboundResource<F>,
  useCases: ResourceUseCases<E, F>,
  parents?: ParentsOf<F>,
): GraphQLFragment {
  const { declaration } = resource;
  const { pascal, camel } = namesOf(declaration);
  const T = pascal.singular;
  const paths = pathsOf(declaration).policy;
  const present = graphqlPresenter(declaration);
  const idOf = idReader(resource.notFound);
  const bodies = bodiesOf(declaration);
  const create = bodies.create as Shape;
  const update = bodies.update as Shape;
  const enums = Object.entries(declaration.fields)
    .filter(([, f]) => f.type === 'enum')
    .map(([key]) => key);
  const input = (raw: unknown) => (enums.length === 0 ? raw : enumsFromGraphQL(raw, enums));
  type Query = ListQuery<SortFieldOf<F>>;

  const list: Resolver = async (args, context) => {
    const searching = useCases.search !== undefined && args.search !== undefined && args.search !== null;
    const caller = await guard(context, searching ? paths.search : paths.collection, 'GET');
    const { q, ...page } = listArguments(args, declaration.sortFields, bodies.filters);
    const query = { ...page, ...ownerOf(declaration, caller) } as Query;
    const found =
      q === undefined || !useCases.search
        ? await useCases.list.execute(query)
        : await useCases.search.execute({ ...query, q });
    return presentPage(found, present, context);
  };

  const types = new Set(Object.values(declaration.fields).map((f) => f.type));
  const scalars = [
    ...(types.has('decimal') ? ['Decimal' as const] : []),
    ...(types.has('date') ? ['Date' as const] : []),
  ];
  const files = fileResolvers(declaration, useCases.links);
  const relations = relationResolvers(resource, useCases, parents, present);
  return {
    typeDefs: resourceTypeDefs(declaration),
    ...(scalars.length > 0 ? { scalars } : {}),
    ...(files ? { sharedTypes: ['File' as const] } : {}),
    types: files ? { ...relations, [T]: { ...relations[T], ...files } } : relations,
    resolvers: {
      Query: {
        [camel.singular]: async (args, context) => {
          const caller = await guard(context, paths.item, 'GET');
          return present(await useCases.get.execute({ id: idOf(args.id), ...ownerOf(declaration, caller) }));
        },
        [camel.plural]: list,
      },
      Mutation: {
        [`create${T}`]: async (args, context) => {
          const caller = await guard(context, paths.collection, 'POST');
          const decoded = decodeMutationInput(create, input(args.input));
          if ('rejected' in decoded) return decoded.rejected;
          const owner = declaration.owned ? { owner: caller.userId } : {};
          const created = await mutationWrite(() =>
            useCases.create.execute({ ...(decoded.value as object), ...owner } as never),
          );
          if ('rejected' in created) return created.rejected;
          return { status: 201, message: 'created', errors: null, data: present(created.value) };
        },
        [`update${T}`]: async (args, context) => {
          const caller = await guard(context, paths.item, 'PUT');
          const id = idOf(args.id);
          const changes = decodeMutationInput(update, withoutNulls(input(args.input), update));
          if ('rejected' in changes) return changes.rejected;
          const mine = ownerOf(declaration, caller);
          const updated = await mutationWrite(() =>
            useCases.update.execute({ id, changes: changes.value as never, ...mine }),
          );
          if ('rejected' in updated) return updated.rejected;
          return { status: 200, message: 'updated', errors: null, data: present(updated.value) };
        },
        [`delete${T}`]: async (args, context) => {
          const caller = await guard(context, paths.item, 'DELETE');
          await useCases.remove.execute({ id: idOf(args.id), ...ownerOf(declaration, caller) });
          return { status: 200, message: 'deleted', errors: null };
        },
        ...commandResolvers(resource, useCases, present),
      },
    },
  };
}

/**
 * For a resource with `file` fields: each one's resolver (`Document.attachment`), answering the
 * stored file as a `File` whose `url` is its signed link (made only when the field is asked for);
 * undefined for a resource without one.
 */
function fileResolvers(
  declaration: Pick<ResourceDeclaration, 'plural' | 'fields'>,
  links: Pick<FileLinks, 'url'> | undefined,
): Record<string, FieldResolver> | undefined {
  const keys = fileFieldsOf(declaration);
  if (keys.length === 0) return undefined;
  if (!links) throw new Error(`${declaration.plural}: its file fields need FileLinks to answer their links`);
  return Object.fromEntries(
    keys.map((key): [string, FieldResolver] => [
      key,
      async (source) => {
        const file = source[key] as StoredFile | null | undefined;
        if (!file) return null;
        return { url: await links.url(file), size: file.size, contentType: file.contentType, sha256: file.sha256 };
      },
    ]),
  );
}

/**
 * Each declared command's mutation (`shipBookOrder(id)`), checked as its REST route (POST on
 * `/{id}/ship`): the row after it, or — from a state the command does not start from — `status:
 * 409` in the response object with the message naming the state. An unknown id is NOT_FOUND, as
 * for update.
 */
function commandResolvers<F extends FieldDeclarations, E extends ResourceEntity<F> & FieldValues<F>>(
  resource: InboundResource<F>,
  useCases: ResourceUseCases<E, F>,
  present: (entity: E) => Record<string, unknown>,
): Record<string, Resolver> {
  const idOf = idReader(resource.notFound);
  return Object.fromEntries(
    commandsOf(resource.declaration).map((command): [string, Resolver] => {
      const run = useCases.commands?.[command.verb];
      if (!run) throw new Error(`${resource.declaration.plural}: no use case given for the command ${command.verb}`);
      return [
        command.mutation,
        async (args, context) => {
          const caller = await guard(context, command.policyPath, 'POST');
          const id = idOf(args.id);
          try {
            const changed = await run.execute({ id, ...ownerOf(resource.declaration, caller) });
            return { status: 200, message: command.verb, errors: null, data: present(changed) };
          } catch (error) {
            if (!(error instanceof ConflictError)) throw error;
            return { status: 409, message: error.message, errors: null, data: null };
          }
        },
      ];
    }),
  );
}

/**
 * The relation fields of a resource's `ref` fields, each batched per request (batches.ts): a page
 * of N invoices asking for `customer` reads the customers once, and a page of N customers asking
 * for `invoices(...)` reads every page of invoices at once — a fixed number of queries whatever N.
 * Each is checked as the REST call it mirrors: the referenced row's GET, the nested list's GET.
 */
function relationResolvers<F extends FieldDeclarations, E extends ResourceEntity<F> & FieldValues<F>>(
  resource: InboundResource<F>,
  useCases: ResourceUseCases<E, F>,
  parents: ParentsOf<F> | undefined,
  present: (entity: E) => Record<string, unknown>,
): Record<string, Record<string, FieldResolver>> {
  const { declaration } = resource;
  const { pascal, camel } = namesOf(declaration);
  const types: Record<string, Record<string, FieldResolver>> = {};
  const bodies = bodiesOf(declaration);
  for (const relation of relationsOf(declaration)) {
    const parent = (parents as Readonly<Record<string, ParentResource>> | undefined)?.[relation.key];
    if (!parent) throw new Error(`${declaration.plural}: no parent resource given for ${relation.key}`);
    const parentDeclaration = parent.resource.declaration;
    const parentPaths = pathsOf(parentDeclaration).policy;
    const presentParent = graphqlPresenter(parentDeclaration) as (entity: unknown) => Record<string, unknown>;
    const loadParents = (owner: { owner?: string }) => async (ids: readonly string[]) =>
      new Map(
        (await parent.useCases.getMany.execute({ ids, ...owner })).map((row) => [(row as { id: string }).id, row]),
      );
    (types[pascal.singular] ??= {})[relation.parentField] = async (source, _args, context) => {
      const id = source[relation.key];
      if (typeof id !== 'string') return null;
      const caller = await guard(context, parentPaths.item, 'GET');
      // A parent row of another owner, for a caller who sees only their own, is no row (null).
      const owner = ownerOf(parentDeclaration, caller);
      const batch = `${parentDeclaration.plural}.byId${owner.owner === undefined ? '' : `:${owner.owner}`}`;
      const row = await batchLoad(context, batch, id, loadParents(owner));
      return row === undefined ? null : presentParent(row);
    };

    if (!relation.reverse) continue;
    const { [relation.key]: _own, ...otherFilters } = bodies.filters;
    const byReference = useCases.listByReference;
    (types[namesOf(parentDeclaration).pascal.singular] ??= {})[camel.plural] = async (source, args, context) => {
      if (!byReference) throw new Error(`${declaration.plural}: listByReference is not provided`);
      const caller = await guard(context, relation.policyPath, 'GET');
      const query = {
        ...listArguments(args, declaration.sortFields, otherFilters),
        ...ownerOf(declaration, caller),
      } as ListQuery<SortFieldOf<F>>;
      // Searching is checked as the top-level search is: GET on the resource's search route.
      if (query.q !== undefined) await guard(context, pathsOf(declaration).policy.search, 'GET');
      // One batch per distinct list arguments: aliases asking for other pages are batched apart.
      const name = `${declaration.plural}.by.${relation.key}:${JSON.stringify(query)}`;
      const page = await batchLoad(context, name, source.id as string, (ids) =>
        byReference.execute({ field: relation.field, ids, query }),
      );
      return presentPage(page ?? { items: [], total: 0, page: query.page, perPage: query.perPage }, present, context);
    };
  }
  return types;
}
