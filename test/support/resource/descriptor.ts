/**
 * What the shared resource suites (REST, GraphQL, RBAC, use cases) know about the resource under
 * test. A generated resource's test files declare one of these from its model and call the suites;
 * products declare theirs by hand in test/support/resource/products.ts, from the same facts.
 */

import type { FieldType } from '../../../src/domain/shared/resource.js';

/** A JSON value as a request body or an answer carries it. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/** The field types (README: Add a resource): how values compare when a list is sorted. */
export type FieldKind = FieldType;

/** A value the API must refuse for a field, and the message it must refuse it with. */
export interface InvalidValue {
  /** The REST JSON form (GraphQL sends the same value as a variable, unless `graphql` is given). */
  readonly value: Json;
  readonly message: string;
  /** The GraphQL variable form when it differs; `undefined` (the key absent) when GraphQL cannot carry it past its own type check. */
  readonly graphql?: Json;
  /** Whether GraphQL's own variable coercion refuses it before a resolver runs (a string for a Float): then only REST checks it. */
  readonly restOnly?: boolean;
}

export interface FieldUnderTest {
  /** The REST JSON name and the sort and filter parameter (snake case). */
  readonly name: string;
  /** The GraphQL field name (camel case). */
  readonly graphql: string;
  readonly kind: FieldKind;
  /** Nullable: absent on create means null, `null` in an update clears it. */
  readonly optional: boolean;
  /** `sort=<name>` is accepted (every kind but text). */
  readonly sortable: boolean;
  /**
   * Two different valid values in REST JSON form, exactly as the API answers them (trimmed,
   * lower-cased, in UTC): the first is used on create, the second on update. Unused for a ref.
   */
  readonly samples: readonly [Json, Json];
  /** The same two values in GraphQL form, when they differ (enum values upper case). */
  readonly graphqlSamples?: readonly [Json, Json];
  /** Values the API refuses for this field, each with its message (README: Add a resource: the bound is in it). */
  readonly invalid: readonly InvalidValue[];
  /** A reference: the resource it names. The suites create a row of it first and use its id. */
  readonly ref?: () => ResourceUnderTest;
  /** Its default (REST form): a create that leaves it out stores it, so it is not required. */
  readonly default?: Json;
  /**
   * Read-only: set only by the server. Its samples are then what a create stores (a client may send
   * it back as it is); `other`, a valid value besides, is refused (`is read-only`).
   */
  readonly readOnly?: { readonly other?: Json; readonly otherGraphql?: Json };
  /** Unique (not a ref): each row the suites make holds a value of its own (`variantOf`), not the sample. */
  readonly unique?: boolean;
}

/** The REST operations of a resource, as the RBAC suite names them. */
export type RestOperation = 'list' | 'search' | 'get' | 'create' | 'update' | 'delete';
/** The GraphQL root fields of a resource, by role: `one`/`list` mirror GET, the mutations POST/PUT/DELETE. */
export type GraphQLOperation = 'one' | 'list' | 'create' | 'update' | 'delete';

export type Role = 'user' | 'moderator' | 'admin';
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Which methods each role may use on the resource's collection and item paths. */
export type PolicyUnderTest = Readonly<Record<Role, readonly Method[]>>;

/** docs/access-rules.md pattern, the rules the generator writes: `user` GET only, `moderator` and `admin` everything. */
export const GENERATED_POLICY: PolicyUnderTest = {
  user: ['GET'],
  moderator: ['GET', 'POST', 'PUT', 'DELETE'],
  admin: ['GET', 'POST', 'PUT', 'DELETE'],
};

/**
 * The rules the generator writes for an owned resource: `user` every method, under scope `own`
 * (GET and POST on the collection, GET, PUT and DELETE on the item), `moderator` and `admin` everything on every row.
 */
export const OWNED_POLICY: PolicyUnderTest = {
  user: ['GET', 'POST', 'PUT', 'DELETE'],
  moderator: ['GET', 'POST', 'PUT', 'DELETE'],
  admin: ['GET', 'POST', 'PUT', 'DELETE'],
};

export interface ResourceUnderTest {
  /** "Product" (its NotFound message is "Product not found"). */
  readonly human: string;
  /** The REST collection path, from the resource's `<UPPER>_PATHS`. */
  readonly collection: string;
  /** GraphQL names: the type (`Product`), the item field (`product`) and the list field (`products`). */
  readonly graphql: { readonly type: string; readonly one: string; readonly list: string };
  /** The fields, in the order the model declares them (the order validation errors list them in). */
  readonly fields: readonly FieldUnderTest[];
  /**
   * Its `file` fields (REST and GraphQL names): never in the suites' bodies (only an upload sets
   * one), answered null on the rows they make; a body setting one is refused (`UPLOADED_ONLY`).
   */
  readonly files?: readonly { readonly name: string; readonly graphql: string }[];
  /** The searched field's snake name, when the resource has `--search`. */
  readonly search?: string;
  readonly policy: PolicyUnderTest;
  /** Owned: each row belongs to its creator (`owner_id`); under the `user` rules of scope `own` a user reaches only theirs. */
  readonly owned?: boolean;
}

/** The sortable names of a resource: its sortable fields in model order, then created_at and updated_at. */
export const sortFieldsOf = (resource: ResourceUnderTest): string[] => [
  ...resource.fields.filter((f) => f.sortable).map((f) => f.name),
  'created_at',
  'updated_at',
];

/** `created_at` → `createdAt`. */
export const camelOf = (snake: string): string => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The GraphQL mutation names of a resource (README: Add a resource). */
export const mutationsOf = (resource: ResourceUnderTest) => ({
  create: `create${resource.graphql.type}`,
  update: `update${resource.graphql.type}`,
  delete: `delete${resource.graphql.type}`,
});

/** The methods a REST operation uses. */
export const METHOD_OF: Readonly<Record<RestOperation | GraphQLOperation, Method>> = {
  list: 'GET',
  search: 'GET',
  get: 'GET',
  one: 'GET',
  create: 'POST',
  update: 'PUT',
  delete: 'DELETE',
};

/** A UUID no row has. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-00000000dead';
