import pluralize from 'pluralize';

/** The generator's field types (README: Add a resource), in the order `--help` lists them. */
export const FIELD_TYPES = [
  'string',
  'text',
  'integer',
  'number',
  'decimal',
  'boolean',
  'datetime',
  'date',
  'email',
  'uuid',
  'enum',
  'ref',
  'file',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * Bounds of a field: lengths in characters for `string`/`text`, values for `integer`/`number`.
 * Integer bounds are always inclusive (`integer(>0)` is stored as min 1); only `number` keeps the
 * exclusive flags. Types without bounds have `{}`.
 */
export interface Bounds {
  min?: number;
  max?: number;
  minExclusive?: boolean;
  maxExclusive?: boolean;
}

/** Every way a snake-case name is spelled in the generated code. */
export interface ResourceNames {
  /** purchase_order */
  snake: string;
  /** purchase-order (added beyond ISSUE10.md: the singular in file and path-like names) */
  kebab: string;
  /** PurchaseOrder */
  pascal: string;
  /** purchaseOrder */
  camel: string;
  /** purchase_orders (the table) */
  pluralSnake: string;
  /** purchase-orders (the REST path segment) */
  pluralKebab: string;
  /** purchaseOrders (the GraphQL list field) */
  pluralCamel: string;
  /** PurchaseOrders */
  pluralPascal: string;
  /** "Purchase order" (NotFound message: "Purchase order not found") */
  human: string;
  /** "Purchase orders" (added beyond ISSUE10.md: for documents and descriptions) */
  pluralHuman: string;
}

export interface FieldModel {
  /** snake: customer_id (column and REST JSON name) */
  name: string;
  /** camel: customerId (TypeScript property and GraphQL field) */
  camel: string;
  type: FieldType;
  /** Nullable: absent on create means null, `null` in an update clears it. */
  optional: boolean;
  /** With the type's defaults filled in (string 1..200, text 0..10000, integer the signed 32-bit range). */
  bounds: Bounds;
  /** The listed values of an `enum`, in the order given. */
  values?: string[];
  /** A `decimal`'s digits in all and after the point (`decimal(12,2)`). */
  precision?: number;
  scale?: number;
  /** The referenced resource of a `ref`. */
  ref?: ResourceNames;
  /** A `file`'s media types (`image/png`, or a range `image/*`), lower case, in the order given. */
  types?: string[];
  /** A `file`'s largest size in bytes. */
  maxBytes?: number;
  /** Every type but `text` and `file` can be sorted on. */
  sortable: boolean;
  /** `+unique`: no two rows hold equal values (nulls excepted). */
  unique?: boolean;
  /** `+readonly`: set only by the server (its default on create, then by the resource's commands). */
  readonly?: boolean;
  /**
   * `=value`: what a create that leaves the field out stores, and the rows stored before the field
   * get — read with the field's rule, in the domain's form (an instant as RFC 3339 text).
   */
  defaultValue?: string | number | boolean;
}

/** The flags a field may carry after its type: `+unique`, `+readonly`. */
export const FIELD_FLAGS = ['unique', 'readonly'] as const;

export interface ResourceModel {
  names: ResourceNames;
  fields: FieldModel[];
  /** The `--search` field (a `string` field), if any. */
  search?: FieldModel;
  /** `--owned`: each row belongs to the user who created it (`user` rules reach only their own rows). */
  owned?: boolean;
  /** `--cached`: a GET by id goes through the shared cache, forgotten on every instance by each write. */
  cached?: boolean;
  /**
   * The stamp of the migration that creates its table: its UTC creation time (`20261127T0512`,
   * file `20261127T0512_invoices.ts`), or a legacy counter (`0002`: `Migration0002Products.ts`).
   */
  migrationStamp: string;
}

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** The default bounds of each type that takes bounds (README: Add a resource table). */
export const DEFAULT_BOUNDS: Readonly<Partial<Record<FieldType, Readonly<Bounds>>>> = {
  string: { min: 1, max: 200 },
  text: { min: 0, max: 10000 },
  integer: { min: INT32_MIN, max: INT32_MAX },
  number: {},
};

/** A word of a snake name: a lower-case letter, then letters and digits. */
export const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z][a-z0-9]*)*$/;

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `purchase_order` → `purchaseOrder`. */
export function camelOf(snake: string): string {
  const [first = '', ...rest] = snake.split('_');
  return first + rest.map(capitalize).join('');
}

/** `purchase_order` → `PurchaseOrder`. */
export function pascalOf(snake: string): string {
  return snake.split('_').map(capitalize).join('');
}

/** The plural by English rules (the `pluralize` library), of the last word only: `purchase_order` → `purchase_orders`. */
export function pluralOf(snake: string): string {
  const words = snake.split('_');
  const last = words.pop() ?? '';
  return [...words, pluralize.plural(last)].join('_');
}

/** The singular of the last word: `purchase_orders` → `purchase_order`. */
export function singularOf(snake: string): string {
  const words = snake.split('_');
  const last = words.pop() ?? '';
  return [...words, pluralize.singular(last)].join('_');
}

/** Every naming form of a lower snake case singular name. */
export function namesOf(snake: string): ResourceNames {
  const plural = pluralOf(snake);
  const human = (s: string) => capitalize(s.split('_').join(' '));
  return {
    snake,
    kebab: snake.split('_').join('-'),
    pascal: pascalOf(snake),
    camel: camelOf(snake),
    pluralSnake: plural,
    pluralKebab: plural.split('_').join('-'),
    pluralCamel: camelOf(plural),
    pluralPascal: pascalOf(plural),
    human: human(snake),
    pluralHuman: human(plural),
  };
}

/** The GraphQL type names a resource declares (README: Add a resource). */
export function graphqlTypesOf(names: ResourceNames): string[] {
  const p = names.pascal;
  return [p, `${p}List`, `${p}Response`, `Create${p}Input`, `Update${p}Input`];
}

/** The GraphQL root fields (Query and Mutation) a resource declares (README: Add a resource). */
export function graphqlRootFieldsOf(names: ResourceNames): string[] {
  const p = names.pascal;
  return [names.camel, names.pluralCamel, `create${p}`, `update${p}`, `delete${p}`];
}

/**
 * The nested list of each `ref` field, in the policy's form: `/api/v1/customers/{id}/invoices` for
 * an invoice's `customer_id` (README: Add a resource, relations). Its rules are the list's.
 */
export function nestedListPaths(m: ResourceModel): string[] {
  // One per referenced resource, however many fields name it (src/adapters/inbound/resources.ts: relationsOf).
  const parents = new Set(m.fields.flatMap((field) => (field.ref ? [field.ref.pluralKebab] : [])));
  return [...parents].map((plural) => `/api/v1/${plural}/{id}/${m.names.pluralKebab}`);
}
