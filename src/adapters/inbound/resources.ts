import type { AccessScope } from '../../application/ports/AccessPolicy.js';
import type { Authenticate } from '../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';
import type { FileLinks } from '../../application/files/FileLinks.js';
import type { ListQuery, Page } from '../../domain/shared/Page.js';
import type {
  Changes,
  CreateInput,
  FieldDeclarations,
  ResourceDeclaration,
  SortFieldOf,
} from '../../domain/shared/resource.js';
import { verbWords, type CommandDeclaration } from '../../domain/shared/commands.js';
import { snakeCase } from '../../domain/shared/resource.js';
import { idOf } from './ids.js';
import { resourcePaths } from './paths.js';

/** `purchase_order` → `PurchaseOrder`. */
const pascal = (snake: string): string => snake.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
/** `purchase_order` → `purchaseOrder`. */
const camel = (snake: string): string => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Every spelling of a declared resource's name the inbound adapters use. */
export interface ResourceNames {
  /** In words: `purchase order`, `purchase orders`. */
  readonly human: { readonly singular: string; readonly plural: string };
  /** `PurchaseOrder`, `PurchaseOrders`: GraphQL types, operation ids. */
  readonly pascal: { readonly singular: string; readonly plural: string };
  /** `purchaseOrder`, `purchaseOrders`: GraphQL root fields. */
  readonly camel: { readonly singular: string; readonly plural: string };
}

export function namesOf(resource: Pick<ResourceDeclaration, 'name' | 'plural'>): ResourceNames {
  const { name, plural } = resource;
  return {
    human: { singular: name.replace(/_/g, ' '), plural: plural.replace(/_/g, ' ') },
    pascal: { singular: pascal(name), plural: pascal(plural) },
    camel: { singular: camel(name), plural: camel(plural) },
  };
}

/** A resource's routes: `/api/v1/<plural in kebab case>`, its item and search paths, and their policy forms. */
export const pathsOf = (resource: Pick<ResourceDeclaration, 'plural'>) =>
  resourcePaths(`/api/v1/${resource.plural.replace(/_/g, '-')}`);

/** An id that cannot name a row of the resource is answered like an unknown one, without a query. */
/**
 * The owner a read or write of an owned resource is limited to: the caller, when the rule the access
 * check found reaches only their own rows (scope `own`); else none (every row). REST and GraphQL both ask this.
 */
export const ownerFor = (
  resource: { readonly owned: boolean },
  scope: AccessScope | undefined,
  caller: string | undefined,
): { owner?: string } => (resource.owned && scope === 'own' && caller !== undefined ? { owner: caller } : {});

export const idReader =
  (notFound: (id: string) => Error) =>
  (raw: unknown): string =>
    idOf(raw, notFound);

/**
 * What both inbound adapters (REST and GraphQL) drive for a declared resource `F` whose entity is
 * `E`: the caller checks and the six use cases (`search` only for a resource with a search field).
 */
export interface ResourceUseCases<E, F extends FieldDeclarations> {
  authenticate: Authenticate;
  policy: AccessPolicy;
  /** For a resource with `file` fields: the signed links its items answer each file with. */
  links?: Pick<FileLinks, 'url'>;
  /** `owner`: an owned resource's new row's owner, the caller. */
  create: { execute(input: CreateInput<F> & { readonly owner?: string }): Promise<E> };
  /** `owner` (here and below): only that owner's rows — a caller whose rule reaches only their own. */
  get: { execute(input: { readonly id: string; readonly owner?: string }): Promise<E> };
  list: { execute(query: ListQuery<SortFieldOf<F>>): Promise<Page<E>> };
  search?: { execute(query: ListQuery<SortFieldOf<F>> & { readonly q: string }): Promise<Page<E>> };
  update: {
    execute(input: {
      readonly id: string;
      readonly changes: Changes<F>;
      readonly expectedVersions?: readonly number[];
      readonly owner?: string;
    }): Promise<E>;
  };
  remove: {
    execute(input: {
      readonly id: string;
      readonly expectedVersions?: readonly number[];
      readonly owner?: string;
    }): Promise<unknown>;
  };
  /** Many rows by id in one read (GraphQL relation fields pointing at this resource). */
  getMany: { execute(input: { readonly ids: readonly string[]; readonly owner?: string }): Promise<readonly E[]> };
  /** For a resource with commands: each command's use case, by verb (`ship`). */
  commands?: Readonly<
    Record<
      string,
      {
        execute(input: {
          readonly id: string;
          readonly expectedVersions?: readonly number[];
          readonly owner?: string;
        }): Promise<E>;
      }
    >
  >;
  /** For a resource with `file` fields: its file flows (docs/files.md), each taking the field by its JSON name. */
  files?: FileRouteUseCases<E>;
  /** For a resource with a reference: a page per referenced row, in one read (the referenced type's list field). */
  listByReference?: {
    execute(input: {
      readonly field: string;
      readonly ids: readonly string[];
      readonly query: ListQuery<SortFieldOf<F>>;
    }): Promise<ReadonlyMap<string, Page<E>>>;
  };
}

type Owner = { readonly owner?: string };
type Item = { readonly id: string; readonly field: string; readonly expectedVersions?: readonly number[] } & Owner;

/** The file flows the routes drive (src/application/files), each taking the field by its JSON name. */
export interface FileRouteUseCases<E> {
  upload: {
    execute(
      input: Item & {
        readonly contentType: string | undefined;
        readonly body: AsyncIterable<Uint8Array>;
        readonly signal?: AbortSignal;
      },
    ): Promise<E>;
  };
  clear: { execute(input: Item): Promise<E> };
  download: { execute(input: { readonly id: string; readonly field: string } & Owner): Promise<string> };
  startUpload: {
    execute(
      input: {
        readonly id: string;
        readonly field: string;
        readonly contentType: string;
        readonly size: number;
      } & Owner,
    ): Promise<{
      readonly uploadId: string;
      readonly url: string;
      readonly method: 'PUT';
      readonly headers: Readonly<Record<string, string>>;
      readonly expiresAt: Date;
    }>;
  };
  completeUpload: { execute(input: Item & { readonly uploadId: string }): Promise<E> };
}

/**
 * The resource a `ref` field names, as the referencing resource's adapters are given it: its
 * inbound description (names, paths, 404) and its use cases (`get` for the nested route's 404,
 * `getMany` for the batched GraphQL field).
 */
export interface ParentResource {
  readonly resource: InboundResource<FieldDeclarations>;
  readonly useCases: {
    readonly get: { execute(input: { readonly id: string; readonly owner?: string }): Promise<unknown> };
    readonly getMany: {
      execute(input: { readonly ids: readonly string[]; readonly owner?: string }): Promise<readonly unknown[]>;
    };
  };
}

/** The resources a declared resource's `ref` fields name, by field (`{ customerId: … }`). */
export type ParentsOf<F extends FieldDeclarations> = {
  readonly [K in keyof F as F[K]['type'] extends 'ref' ? K : never]: ParentResource;
};

/** One `ref` field of a resource and the relation it makes, in every spelling the adapters use. */
export interface Relation {
  /** The field (`customerId`) and its JSON name, its list filter (`customer_id`). */
  readonly key: string;
  readonly field: string;
  /** The GraphQL field on the referencing type (`Invoice.customer`): the key without `Id`. */
  readonly parentField: string;
  /** The referenced resource's names (`customer`, `customers`). */
  readonly parent: { readonly name: string; readonly plural: string };
  /** `GET /api/v1/customers/:id/invoices`: the router's pattern, and the policy's form. */
  readonly path: string;
  readonly policyPath: string;
  /**
   * Whether this field gives the referenced resource its list of these rows (the nested route and
   * `Customer.invoices`): one field per referenced resource does — the one named after it
   * (`customer_id`), else the first that names it; another (`payer_id`) gives `Invoice.payer` only.
   */
  readonly reverse: boolean;
}

/** The keys (camel case) of a resource's `file` fields, in field order. */
export const fileFieldsOf = (resource: Pick<ResourceDeclaration, 'fields'>): string[] =>
  Object.entries(resource.fields)
    .filter(([, f]) => f.type === 'file')
    .map(([key]) => key);

/** The relations of a declared resource: one per `ref` field, in field order. */
export function relationsOf(resource: Pick<ResourceDeclaration, 'plural' | 'fields'>): Relation[] {
  const children = pathsOf(resource).collection.split('/').pop() ?? resource.plural;
  const refs = Object.entries(resource.fields).filter(([, d]) => d.type === 'ref' && d.references);
  const reverseOf = new Map<string, string>();
  for (const [key, declaration] of refs) {
    const parent = declaration.references!.singular;
    if (snakeCase(key) === `${parent}_id` || !reverseOf.has(parent)) reverseOf.set(parent, key);
  }
  return Object.entries(resource.fields).flatMap(([key, declaration]) => {
    const parent = declaration.references;
    if (declaration.type !== 'ref' || !parent) return [];
    const parentPaths = pathsOf({ plural: parent.plural });
    return [
      {
        key,
        field: snakeCase(key),
        parentField: key.replace(/Id$/, ''),
        parent: { name: parent.singular, plural: parent.plural },
        path: `${parentPaths.item}/${children}`,
        policyPath: `${parentPaths.policy.item}/${children}`,
        reverse: reverseOf.get(parent.singular) === key,
      },
    ];
  });
}

/** A declared resource as its inbound adapters are given it: the declaration, and its not-found error. */
export interface InboundResource<F extends FieldDeclarations> {
  readonly declaration: ResourceDeclaration<F>;
  /** 404 for an id (or an id-like text) that names no row. */
  notFound(id: string): Error;
}

/** A declared resource as its inbound adapters are given it, from its entity class (declaration and errors). */
export const inboundOf = <F extends FieldDeclarations>(entity: {
  readonly declaration: ResourceDeclaration<F>;
  readonly errors: { notFound(id: string): Error };
}): InboundResource<F> => ({ declaration: entity.declaration, notFound: (id) => entity.errors.notFound(id) });

/** One declared command of a resource, in every spelling the adapters use. */
export interface Command {
  /** The verb, as declared and as the entity's method is named (`markPaid`). */
  readonly verb: string;
  readonly declaration: CommandDeclaration;
  /** `POST /api/v1/book-orders/:id/mark-paid`: the router's pattern, and the policy's form. */
  readonly path: string;
  readonly policyPath: string;
  /** The GraphQL mutation (`markPaidBookOrder`). */
  readonly mutation: string;
  /** `markPaidBookOrder` as the API document's operation id. */
  readonly operationId: string;
}

/** The commands of a declared resource, in declaration order. */
export function commandsOf(resource: Pick<ResourceDeclaration, 'name' | 'plural' | 'commands'>): Command[] {
  const paths = pathsOf(resource);
  const { pascal } = namesOf(resource);
  return Object.entries(resource.commands ?? {}).map(([verb, declaration]) => {
    const segment = verbWords(verb).replace(/_/g, '-');
    return {
      verb,
      declaration,
      path: `${paths.item}/${segment}`,
      policyPath: `${paths.policy.item}/${segment}`,
      mutation: `${verb}${pascal.singular}`,
      operationId: `${verb}${pascal.singular}`,
    };
  });
}
