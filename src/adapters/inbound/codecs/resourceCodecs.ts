import type { FieldRule } from '../../../domain/shared/fieldRules.js';
import { WIRE, type JsonSchema } from './jsonSchema.js';
import type { FieldDeclaration, FieldDeclarations, ResourceDeclaration } from '../../../domain/shared/resource.js';
import {
  booleanField,
  dateField,
  dateTimeField,
  decimalField,
  emailField,
  enumField,
  fileField,
  integerField,
  nullable,
  numberField,
  optional,
  required,
  rule,
  stringField,
  uuidField,
  type FieldCodec,
  type FieldSpec,
} from './fields.js';

/**
 * An owned resource's `owner_id` in a body: taken as sent, for the use case to hold it to the
 * owner (the caller on create, the row's on update); any other value is refused as read-only.
 */
export const ownerIdField = rule<unknown>('is read-only', (u) => u, {
  ...WIRE.uuid,
  readOnly: true,
  description: 'The user the row belongs to: set by the server from the caller; a body may only repeat it',
});

/** The codec reading one declared field's (non-null) value as a client sends it, by its type. */
export function codecOf(declaration: FieldDeclaration): FieldCodec<unknown> {
  return codecByType(declaration) as FieldCodec<unknown>;
}

function codecByType(
  declaration: FieldDeclaration,
): FieldCodec<string> | FieldCodec<number> | FieldCodec<boolean> | FieldCodec<Date> | FieldCodec<never> {
  const rule = declaration.rule as FieldRule<never>;
  switch (declaration.type) {
    case 'string':
    case 'text':
      return stringField(rule);
    case 'integer':
      return integerField(rule);
    case 'number':
      return numberField(rule);
    case 'decimal':
      return decimalField(declaration.rule as FieldRule<string>);
    case 'boolean':
      return booleanField();
    case 'datetime':
      return dateTimeField(rule);
    case 'date':
      return dateField(rule);
    case 'email':
      return emailField(rule);
    case 'uuid':
    case 'ref':
      return uuidField(rule);
    case 'enum':
      return enumField<string>(rule as FieldRule<string>);
    case 'file':
      return fileField(declaration.rule);
  }
}

type Value<D> = D extends FieldDeclaration<infer T, infer N> ? (N extends true ? T | null : T) : never;

/** Create: every field required; a nullable one (and `null` allowed) or one with a default optional. */
export type CreateShape<F extends FieldDeclarations> = {
  readonly [K in keyof F]: FieldSpec<
    Value<F[K]>,
    F[K] extends FieldDeclaration<unknown, true> | FieldDeclaration<unknown, boolean, true> ? false : true
  >;
};
/** Update: every field optional; a nullable one takes `null` (clears it). */
export type UpdateShape<F extends FieldDeclarations> = { readonly [K in keyof F]: FieldSpec<Value<F[K]>, false> };

/** What a resource's REST and GraphQL inputs are decoded with, derived from its declaration. */
export interface ResourceBodies<F extends FieldDeclarations> {
  /** Create: every field required; a nullable one (and `null` allowed) or one with a default optional. */
  readonly create: CreateShape<F>;
  /** Update: every field optional; a nullable one takes `null` (clears it). */
  readonly update: UpdateShape<F>;
  /** The list's filters (`?customer_id=<id>`): one per `ref` field. */
  readonly filters: Readonly<Record<string, FieldSpec<unknown, false>>>;
}

/** A field's default as the wire carries it (an instant in RFC 3339, UTC). */
export const wireDefault = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

/** The same codec, its schema stating more (`readOnly`, `default`) for the API document. */
function documented<A>(codec: FieldCodec<A>, more: JsonSchema): FieldCodec<A> {
  if (Object.keys(more).length === 0) return codec;
  return Object.assign(Object.create(codec) as FieldCodec<A>, { schema: { ...codec.schema, ...more } });
}

/** The bodies of a declared resource, each field's codec made once. */
export function bodiesOf<F extends FieldDeclarations>(resource: ResourceDeclaration<F>): ResourceBodies<F> {
  const create: Record<string, FieldSpec<unknown>> = {};
  const update: Record<string, FieldSpec<unknown>> = {};
  const filters: Record<string, FieldSpec<unknown, false>> = {};
  for (const [key, declaration] of Object.entries(resource.fields)) {
    const codec = codecOf(declaration);
    const readOnly: JsonSchema = declaration.isReadonly ? { readOnly: true } : {};
    // A file field refuses every value a body gives it, `null` too: only an upload sets it.
    const value = documented(
      declaration.nullable && declaration.type !== 'file' ? nullable(codec) : codec,
      declaration.type === 'file' ? {} : readOnly,
    );
    const defaulted = declaration.defaultValue !== undefined;
    create[key] =
      declaration.nullable || defaulted
        ? optional(defaulted ? documented(value, { default: wireDefault(declaration.defaultValue) }) : value)
        : required(value);
    update[key] = optional(value);
    if (declaration.type === 'ref') filters[key] = optional(codec);
  }
  return { create, update, filters } as unknown as ResourceBodies<F>;
}
