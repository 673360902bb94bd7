import type { Authenticate } from '../../application/auth/Authenticate.js';
import type { AccessPolicy } from '../../application/ports/AccessPolicy.js';
import type { ListQuery, Page } from '../../domain/shared/Page.js';
import type {
  Changes,
  CreateInput,
  FieldDeclarations,
  ResourceDeclaration,
  SortFieldOf,
} from '../../domain/shared/resource.js';
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
  create: { execute(input: CreateInput<F>): Promise<E> };
  get: { execute(input: { readonly id: string }): Promise<E> };
  list: { execute(query: ListQuery<SortFieldOf<F>>): Promise<Page<E>> };
  search?: { execute(query: ListQuery<SortFieldOf<F>> & { readonly q: string }): Promise<Page<E>> };
  update: {
    execute(input: {
      readonly id: string;
      readonly changes: Changes<F>;
      readonly expectedVersions?: readonly number[];
    }): Promise<E>;
  };
  remove: { execute(input: { readonly id: string; readonly expectedVersions?: readonly number[] }): Promise<unknown> };
}

/** A declared resource as its inbound adapters are given it: the declaration, and its not-found error. */
export interface InboundResource<F extends FieldDeclarations> {
  readonly declaration: ResourceDeclaration<F>;
  /** 404 for an id (or an id-like text) that names no row. */
  notFound(id: string): Error;
}
