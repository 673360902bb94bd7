import type {
  FieldDeclarations,
  FieldValues,
  ResourceDeclaration,
  ResourceEntity,
} from '../../../domain/shared/resource.js';
import type { StoredFile } from '../../../domain/shared/files.js';
import type { FileLinks } from '../../../application/files/FileLinks.js';
import { snakeName, type Shape } from '../codecs/fields.js';
import { bodiesOf, ownerIdField } from '../codecs/resourceCodecs.js';
import { commandsOf, fileFieldsOf, namesOf, pathsOf, relationsOf, type Command, type Relation } from '../resources.js';
import { closedObject, nullableSchema, WIRE, type JsonSchema } from '../codecs/jsonSchema.js';
import { optional } from '../codecs/fields.js';
import type { DefaultSort } from '../codecs/listCodecs.js';
import type { resourcePaths } from '../paths.js';
import type { ListQuerySpec } from '../codecs/listCodecs.js';
import { noContent, ok, page, type Operation, type Tag } from './operations.js';

/** What a resource's REST operations are made of: its names, paths, bodies and list rules. */
export interface ResourceSpec<B extends Shape, U extends Shape, F extends string, S extends boolean, L extends Shape> {
  /** Singular and plural in words (`purchase order`, `purchase orders`). */
  readonly human: { readonly singular: string; readonly plural: string };
  /** Pascal-case names for operation ids and the schema (`PurchaseOrder`, `PurchaseOrders`). */
  readonly pascal: { readonly singular: string; readonly plural: string };
  readonly paths: ReturnType<typeof resourcePaths>;
  readonly create: B;
  readonly update: U;
  readonly sortFields: readonly (F | DefaultSort)[];
  /** Whether it has `GET …/search?q=`. */
  readonly search: S;
  /** Its list filters (`?customer_id=`), one per ref field. */
  readonly filters?: L;
  /** Each row has its owner: answered as `owner_id`, which a body may only repeat. */
  readonly owned?: boolean;
}

type ListOp<F extends string, L extends Shape, Q extends 'none' | 'required'> = Operation & {
  readonly list: { readonly sortFields: readonly (F | DefaultSort)[]; readonly search: Q; readonly filters?: L };
};

export type ResourceOperations<
  B extends Shape,
  U extends Shape,
  F extends string,
  S extends boolean,
  L extends Shape,
> = {
  readonly list: ListOp<F, L, 'none'>;
  readonly create: Operation & { readonly body: B };
  readonly get: Operation;
  readonly update: Operation & { readonly body: U };
  readonly remove: Operation;
} & (S extends true ? { readonly search: ListOp<F, L, 'required'> } : unknown);

const article = (word: string): string => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

/**
 * A resource on the wire: `id`, each field of its create body (by its JSON name; an optional
 * field may be `null`, a field with a default is always answered), `owner_id` when `owned`,
 * `created_at`, `updated_at` — exactly what its presenter writes.
 */
export function resourceSchema(title: string, create: Shape, owned = false): JsonSchema {
  const fields: Record<string, JsonSchema> = {};
  for (const [key, spec] of Object.entries(create)) {
    const { default: defaultValue, ...schema } = spec.codec.schema;
    fields[snakeName(key)] = spec.required || defaultValue !== undefined ? schema : nullableSchema(schema);
  }
  const owner: Record<string, JsonSchema> = owned ? { owner_id: ownerIdField.schema } : {};
  return {
    title,
    ...closedObject({ id: WIRE.uuid, ...fields, ...owner, created_at: WIRE.dateTime, updated_at: WIRE.dateTime }),
  };
}

/** A body of an owned resource: its fields, and `owner_id`, which it may only repeat. */
const withOwner = <B extends Shape>(body: B, owned: boolean | undefined): B =>
  owned ? ({ ...body, ownerId: optional(ownerIdField) } as B) : body;

/**
 * The REST operations of a resource (docs/lists.md and §13): list, create, search (when it has it),
 * get, update and delete, each behind a token and the access policy. Every resource has the same
 * ones, so they are made here once, from the resource's codecs.
 */
export function resourceOperations<
  const B extends Shape,
  const U extends Shape,
  const F extends string,
  const S extends boolean,
  const L extends Shape = Record<never, never>,
>(spec: ResourceSpec<B, U, F, S, L>): ResourceOperations<B, U, F, S, L> {
  const { human, pascal, paths } = spec;
  const schema = resourceSchema(pascal.singular, spec.create, spec.owned);
  const tag: Tag = {
    name: spec.paths.collection.split('/').pop() ?? human.plural,
    description: `The ${human.plural} resource`,
  };
  const one = article(human.singular);
  const filters = spec.filters ? { filters: spec.filters } : {};
  const notFound = `No ${human.singular} has this id (an id that is not a UUID included)`;
  const referenced = `The ${human.singular} is still referenced by another resource`;
  const notUnique = `Another ${human.singular} holds a value that must be unique (CONFLICT, each such field in \`fields\`)`;
  const common = { tag, access: 'policy' } as const;
  const ops = {
    list: {
      ...common,
      id: `list${pascal.plural}`,
      method: 'GET',
      path: paths.collection,
      summary: `List ${human.plural}`,
      description: `A page of ${human.plural}, sorted (ties broken by id, so pages never repeat or skip one).`,
      list: { sortFields: spec.sortFields, search: 'none', ...filters },
      answers: [page(`A page of ${human.plural}`, schema)],
    },
    create: {
      ...common,
      id: `create${pascal.singular}`,
      method: 'POST',
      path: paths.collection,
      summary: `Create ${one}`,
      ...(spec.owned ? { description: `The ${human.singular} belongs to the caller (\`owner_id\`).` } : {}),
      body: withOwner(spec.create, spec.owned),
      answers: [
        ok(201, `The ${human.singular} created, with its version in ETag and its path in Location`, schema, {
          etag: true,
          location: true,
        }),
      ],
      failures: { 409: notUnique },
    },
    ...(spec.search
      ? {
          search: {
            ...common,
            id: `search${pascal.plural}`,
            method: 'GET',
            path: paths.search,
            summary: `Search ${human.plural}`,
            description: `${human.plural.charAt(0).toUpperCase()}${human.plural.slice(1)} whose searchable field contains \`q\`, case-insensitive; paginated like the list.`,
            list: { sortFields: spec.sortFields, search: 'required', ...filters },
            answers: [page(`A page of the ${human.plural} found`, schema)],
          },
        }
      : {}),
    get: {
      ...common,
      id: `get${pascal.singular}`,
      method: 'GET',
      path: paths.item,
      summary: `Get ${one}`,
      answers: [ok(200, `The ${human.singular}, with its version in ETag`, schema, { etag: true })],
      failures: { 404: notFound },
    },
    update: {
      ...common,
      id: `update${pascal.singular}`,
      method: 'PUT',
      path: paths.item,
      summary: `Update ${one}`,
      description:
        'Partial: an absent field is unchanged, a present one is set and validated. With `If-Match`, only if the version is still current.',
      body: withOwner(spec.update, spec.owned),
      ifMatch: true,
      answers: [ok(200, `The ${human.singular} updated, with its new version in ETag`, schema, { etag: true })],
      failures: { 404: notFound, 409: notUnique },
    },
    remove: {
      ...common,
      id: `delete${pascal.singular}`,
      method: 'DELETE',
      path: paths.item,
      summary: `Delete ${one}`,
      description: 'With `If-Match`, only if the version is still current.',
      ifMatch: true,
      answers: [noContent(`The ${human.singular} is deleted`)],
      failures: { 404: notFound, 409: referenced },
    },
  };
  return ops as unknown as ResourceOperations<B, U, F, S, L>;
}

/** `listByCustomer`: the key of a relation's nested list among a resource's operations. */
export const nestedListKey = (relation: Relation): `listBy${string}` =>
  `listBy${relation.parentField.charAt(0).toUpperCase()}${relation.parentField.slice(1)}`;

/**
 * A declared resource's REST operations: its names, paths, bodies, sort keys, search and filters —
 * and for each `ref` field the nested list (`GET /api/v1/customers/{id}/invoices`): the list's
 * parameters and answer, 404 for an unknown referenced row, the same policy as the list's.
 */
export function operationsOf<F extends FieldDeclarations>(resource: ResourceDeclaration<F>) {
  const names = namesOf(resource);
  const bodies = bodiesOf(resource);
  const ops = ownOperationsOf(resource, names, bodies);
  const nested: Record<`listBy${string}`, Operation & { readonly list: ListQuerySpec }> = {};
  for (const relation of relationsOf(resource).filter((r) => r.reverse)) {
    const parent = namesOf(relation.parent);
    const { [relation.key]: _own, ...otherFilters } = bodies.filters;
    nested[nestedListKey(relation)] = {
      ...ops.list,
      id: `list${parent.pascal.singular}${names.pascal.plural}`,
      path: relation.path,
      summary: `List ${article(parent.human.singular)}'s ${names.human.plural}`,
      description: `A page of the ${names.human.plural} whose \`${relation.field}\` names this ${parent.human.singular}, sorted like the list.`,
      list: { ...ops.list.list, filters: otherFilters },
      failures: {
        403: `The role may not list ${names.human.plural}, or may not read ${parent.human.plural}`,
        404: `No ${parent.human.singular} has this id (an id that is not a UUID included)`,
      },
      // Reading the parent row too: its 404 must not tell a role that may not read it which rows exist.
      readsToo: [pathsOf({ plural: relation.parent.plural }).item],
    };
  }
  const commands: Record<`run${string}`, Operation> = {};
  for (const command of commandsOf(resource)) commands[commandKey(command)] = commandOperation(command, names, ops.get);
  return { ...ops, ...nested, ...commands };
}

/** `runShip`: the key of a command's route among a resource's operations. */
export const commandKey = (command: Command): `run${string}` =>
  `run${command.verb.charAt(0).toUpperCase()}${command.verb.slice(1)}`;

/** `POST /api/v1/book-orders/{id}/ship`: a declared command, answered like an update (200, the row, its ETag). */
function commandOperation(command: Command, names: ReturnType<typeof namesOf>, get: Operation): Operation {
  const { field, from, to } = command.declaration;
  const one = article(names.human.singular);
  const words = command.verb.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
  const json = snakeName(field);
  return {
    ...get,
    id: command.operationId,
    method: 'POST',
    path: command.path,
    summary: `${words.charAt(0).toUpperCase()}${words.slice(1)} ${one}`,
    description: `Moves \`${json}\` from ${from.map((s) => `\`${s}\``).join(' or ')} to \`${to}\`. With \`If-Match\`, only if the version is still current.`,
    ifMatch: true,
    // The row, as a read answers it.
    answers: get.answers.map((answer) => ({
      ...answer,
      description: `The ${names.human.singular} after the command, with its new version in ETag`,
    })),
    failures: {
      404: `No ${names.human.singular} has this id (an id that is not a UUID included)`,
      409: `The ${names.human.singular}'s \`${json}\` is not ${from.join(' or ')} (the message names its state)`,
    },
  };
}

function ownOperationsOf<F extends FieldDeclarations>(
  resource: ResourceDeclaration<F>,
  names: ReturnType<typeof namesOf>,
  bodies: ReturnType<typeof bodiesOf<F>>,
) {
  return resourceOperations({
    human: names.human,
    pascal: names.pascal,
    paths: pathsOf(resource),
    create: bodies.create as Shape,
    update: bodies.update as Shape,
    sortFields: resource.sortFields,
    search: resource.search !== undefined,
    filters: bodies.filters,
    owned: resource.owned,
  });
}

/** A value of one field on the wire: instants in UTC with `Z`, null as null, the rest as they are. */
const wireValue = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : (value ?? null));

/** A stored file on the wire: `{url, size, content_type, sha256}`, `url` its signed link. */
export const presentFile = (file: StoredFile, url: string): Record<string, unknown> => ({
  url,
  size: file.size,
  content_type: file.contentType,
  sha256: file.sha256,
});

/**
 * A declared resource's entity on the wire: `id`, each field under its JSON name, `owner_id` (an
 * owned resource), `created_at`, `updated_at` — what `resourceSchema` documents. A resource with
 * `file` fields answers each as `presentFile` with its link from `urlOf` (see `linkedPresenter`).
 */
export function restPresenter<F extends FieldDeclarations>(
  resource: ResourceDeclaration<F>,
  urlOf?: (file: StoredFile) => string | undefined,
): (entity: ResourceEntity<F> & FieldValues<F>) => Record<string, unknown> {
  const files = new Set(fileFieldsOf(resource));
  if (files.size > 0) return filePresenter(resource, files, urlOf);
  const fields = Object.keys(resource.fields).map((key) => [key, snakeName(key)] as const);
  return (entity) => {
    const wire: Record<string, unknown> = { id: entity.id };
    const values = entity as unknown as Record<string, unknown>;
    for (const [key, name] of fields) wire[name] = wireValue(values[key]);
    if (resource.owned) wire.owner_id = entity.ownerId ?? null;
    wire.created_at = entity.createdAt.toISOString();
    wire.updated_at = entity.updatedAt.toISOString();
    return wire;
  };
}

/** `restPresenter` of a resource with `file` fields (kept apart, so the others' presenter does no more). */
function filePresenter<F extends FieldDeclarations>(
  resource: ResourceDeclaration<F>,
  files: ReadonlySet<string>,
  urlOf: ((file: StoredFile) => string | undefined) | undefined,
): (entity: ResourceEntity<F> & FieldValues<F>) => Record<string, unknown> {
  const fields = Object.keys(resource.fields).map((key) => [key, snakeName(key), files.has(key)] as const);
  return (entity) => {
    const wire: Record<string, unknown> = { id: entity.id };
    const values = entity as unknown as Record<string, unknown>;
    for (const [key, name, isFile] of fields) {
      const value = values[key];
      if (!isFile) wire[name] = wireValue(value);
      else if (value === null || value === undefined) wire[name] = null;
      else {
        const url = urlOf?.(value as StoredFile);
        if (url === undefined) throw new Error(`${resource.plural}.${key}: no link was made for the file`);
        wire[name] = presentFile(value as StoredFile, url);
      }
    }
    if (resource.owned) wire.owner_id = entity.ownerId ?? null;
    wire.created_at = entity.createdAt.toISOString();
    wire.updated_at = entity.updatedAt.toISOString();
    return wire;
  };
}

/**
 * A declared resource's presenter of items whose files are answered with their links: it signs
 * every file of `entities` (`links.url`, all at once) and answers them on the wire, in order. For a
 * resource without `file` fields it is `restPresenter` (its routes call that directly, synchronously).
 * A resource with `file` fields needs `links` (else this throws, at start).
 */
export function linkedPresenter<F extends FieldDeclarations, E extends ResourceEntity<F> & FieldValues<F>>(
  resource: ResourceDeclaration<F>,
  links: Pick<FileLinks, 'url'> | undefined,
): (entities: readonly E[]) => Promise<Record<string, unknown>[]> {
  const files = fileFieldsOf(resource);
  if (files.length === 0) {
    const present = restPresenter(resource);
    return async (entities) => entities.map(present);
  }
  if (!links) throw new Error(`${resource.plural}: its file fields need FileLinks to answer their links`);
  return async (entities) => {
    const stored = entities.flatMap((entity) =>
      files.flatMap((key) => {
        const file = (entity as unknown as Record<string, unknown>)[key] as StoredFile | null | undefined;
        return file ? [file] : [];
      }),
    );
    const urls = new Map<StoredFile, string>(
      await Promise.all(stored.map(async (file) => [file, await links.url(file)] as const)),
    );
    return entities.map(restPresenter(resource, (file) => urls.get(file)));
  };
}
