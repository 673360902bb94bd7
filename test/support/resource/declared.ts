import type { FieldFacts } from '../../../src/domain/shared/fieldRules.js';
import { snakeCase, type FieldDeclaration, type ResourceDeclaration } from '../../../src/domain/shared/resource.js';
import type { ResourceErrors } from '../../../src/domain/shared/resourceErrors.js';
import type { StoredFile } from '../../../src/domain/shared/files.js';
import { MODULES } from '../../../src/main/modules/index.js';
import { GENERATED_POLICY, OWNED_POLICY, type InvalidValue, type Json, type ResourceUnderTest } from './descriptor.js';
import { REFERENCED_ID } from './repository.js';
import type { EntityLike, EntityUnderTest } from './useCases.js';
import { NotFoundError, PreconditionFailedError } from '../../../src/domain/shared/DomainError.js';

/**
 * What the shared resource suites need to know of a declared resource, read from its declaration:
 * two valid samples per field, the values its rule refuses (with the rule's own message), a few
 * ascending values per sort key. A resource's tests are then one line, and stay true when a field
 * is added, removed or re-bounded (by `generate field` or by hand).
 */

/** Any declared resource's entity class (each declares its own fields), as the suites use it. */
export interface DeclaredEntity {
  readonly declaration: ResourceDeclaration<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly errors: ResourceErrors;
  create(input: never, now: Date): unknown;
  restore(props: never): unknown;
}

/** The entity's fields, by key (camel case), in declaration order. */
export const fieldsOf = (Entity: DeclaredEntity): [string, FieldDeclaration][] =>
  Object.entries(Entity.declaration.fields);

/** The declared resource served under `plural`, from the service's module list. */
export function declaredEntity(plural: string): DeclaredEntity {
  const found: DeclaredEntity | undefined = MODULES.find(
    (module) => module.resource?.declaration.plural === plural,
  )?.resource;
  if (!found) throw new Error(`no declared resource ${plural} in src/main/modules/index.ts`);
  return found;
}

/** A field's samples: the REST JSON forms, the GraphQL forms where they differ, the refused values. */
export interface FieldSamples {
  readonly rest: readonly [Json, Json];
  readonly graphql?: readonly [Json, Json];
  /** The refused values; `domain` where the entity's own guard refuses the value too (one of its type). */
  readonly invalid: readonly (InvalidValue & { readonly domain?: boolean })[];
  /** Distinct values in ascending order, as the entity holds them (the repository contract's sorts). */
  readonly ascending: readonly (string | number | boolean | Date)[];
}

const inside =
  ({ min, max, minExclusive, maxExclusive }: Range) =>
  (n: number) =>
    (min === undefined || (minExclusive ? n > min : n >= min)) &&
    (max === undefined || (maxExclusive ? n < max : n <= max));

/** A text of the length bounds built from `word`. */
function fit(word: string, min: number, max: number): string {
  const length = Math.min(max, Math.max(min, word.length));
  return word.length >= length ? word.slice(0, length) : word + 'x'.repeat(length - word.length);
}

/** Two numbers inside the range, preferring readable ones. */
function numbersWithin(range: Range, integer: boolean): [number, number] {
  const candidates = integer ? [7, 42, 1, 3, 0, -5, 100, 1000] : [19.99, 5, 0.5, 250, 1, -3.25, 0.001, 1e6];
  const ok = inside(range);
  const found = candidates.filter(ok);
  for (const bound of [range.min, range.max]) {
    if (bound === undefined) continue;
    const near = bound === range.min ? [bound, bound + 1, bound + 0.5] : [bound, bound - 1, bound - 0.5];
    found.push(...near.filter((n) => (integer ? Number.isInteger(n) : true) && ok(n)));
  }
  const distinct = [...new Set(found)];
  return [distinct[0]!, distinct[1] ?? distinct[0]!];
}

/** Two decimals inside the digits and the range, as the API answers them (`"19.99"`), ascending. */
function decimalsWithin(precision: number, scale: number, range: Range): [string, string] {
  const unit = 10 ** -scale;
  const fits = (text: string) =>
    text.replace('-', '').split('.')[0]!.replace(/^0+/, '').length <= precision - scale && inside(range)(Number(text));
  const candidates = [9, 10, 19.99, 5, 250, 0.5, 1, 0, -3.25];
  if (range.min !== undefined) candidates.push(range.min, range.min + unit, range.min + 1, range.min + 2 * unit);
  if (range.max !== undefined) candidates.push(range.max, range.max - unit, range.max - 1, range.max - 2 * unit);
  const [a, b = a] = [...new Set(candidates.map((n) => n.toFixed(scale)))].filter(fits);
  return [a!, b!].sort((x, y) => Number(x) - Number(y)) as [string, string];
}

const ISO = ['2026-03-04T05:06:07.000Z', '2027-11-12T13:14:15.500Z'] as const;
const DAYS = ['2026-03-04', '2027-11-12'] as const;
const EMAILS = ['ada@example.com', 'grace@example.org'] as const;
const UUIDS = ['6f1c2a1e-3b7d-4c2e-9a55-0c8f1d2e3a4b', 'b2e4f6a8-1c3d-4e5f-8a9b-0c1d2e3f4a5b'] as const;

const numeric = (range: Range<number | string>): Range => ({
  ...range,
  min: range.min === undefined ? undefined : Number(range.min),
  max: range.max === undefined ? undefined : Number(range.max),
});
type Range<V = number> = { min?: V; max?: V; minExclusive?: boolean; maxExclusive?: boolean };

function lengthSamples(word: [string, string], length: { min: number; max: number }, message: string): FieldSamples {
  const refused: FieldSamples['invalid'][number][] = [];
  if (length.min > 0) refused.push({ value: 'x'.repeat(length.min - 1), message, domain: true });
  refused.push({ value: 'x'.repeat(length.max + 1), message, domain: true });
  refused.push({ value: 42, message, restOnly: true });
  return {
    rest: [fit(word[0], length.min, length.max), fit(word[1], length.min, length.max)],
    invalid: refused,
    ascending: ['Alpha', 'Beta', 'Gamma'].map((w) => fit(w, Math.max(length.min, 1), length.max)),
  };
}

function numberSamples(facts: Extract<FieldFacts, { kind: 'integer' | 'number' }>, message: string): FieldSamples {
  const integer = facts.kind === 'integer';
  const range: Range = facts.range;
  const [a, b] = numbersWithin(range, integer);
  const ascending = [...new Set([a, b])].sort((x, y) => x - y);
  if (integer) {
    const [min, max] = [range.min!, range.max!];
    const int32 = (n: number) => n >= -2147483648 && n <= 2147483647;
    return {
      rest: [a, b],
      ascending,
      invalid: [
        ...[min - 1, max + 1].map((n) => ({ value: n, message, restOnly: !int32(n), domain: true })),
        { value: 1.5, message, restOnly: true, domain: true },
        { value: '7', message, restOnly: true },
      ],
    };
  }
  const outside: number[] = [];
  if (range.min !== undefined) outside.push(range.minExclusive ? range.min : range.min - 1);
  if (range.max !== undefined) outside.push(range.maxExclusive ? range.max : range.max + 1);
  if (range.min !== undefined && range.minExclusive) outside.push(range.min - 1);
  return {
    rest: [a, b],
    ascending,
    invalid: [...outside.map((n) => ({ value: n, message, domain: true })), { value: '10', message, restOnly: true }],
  };
}

function decimalSamples(facts: Extract<FieldFacts, { kind: 'decimal' }>, message: string): FieldSamples {
  const { precision, scale } = facts;
  const range = numeric(facts.range);
  const [a, b] = decimalsWithin(precision, scale, range);
  const unit = 10 ** -scale;
  const refused = [
    `${a}${scale === 0 ? '.' : ''}1`,
    '1'.repeat(precision - scale + 1),
    ...(range.min !== undefined ? [(range.minExclusive ? range.min : range.min - unit).toFixed(scale)] : []),
    ...(range.max !== undefined ? [(range.maxExclusive ? range.max : range.max + unit).toFixed(scale)] : []),
  ];
  return {
    rest: [a, b],
    ascending: [...new Set([a, b])],
    invalid: [
      ...[...new Set(refused)].map((value) => ({ value, message, domain: true })),
      { value: true, message, restOnly: true },
    ],
  };
}

/** The samples of one field, from its declaration and its rule's facts. */
export function samplesOf(field: FieldDeclaration): FieldSamples {
  const { facts, message } = field.rule;
  switch (facts.kind) {
    case 'text':
      return field.type === 'string'
        ? lengthSamples(['Walnut desk', 'Oak chair'], facts.length, message)
        : lengthSamples(['First note', 'Second note'], facts.length, message);
    case 'integer':
    case 'number':
      return numberSamples(facts, message);
    case 'decimal':
      return decimalSamples(facts, message);
    case 'boolean':
      return { rest: [true, false], ascending: [false, true], invalid: [{ value: 'yes', message, restOnly: true }] };
    case 'datetime':
      return {
        rest: [...ISO],
        ascending: ISO.map((iso) => new Date(iso)),
        invalid: ['2026-03-04T05:06:07', 'soon'].map((value) => ({ value, message, restOnly: true })),
      };
    case 'date':
      return {
        rest: [...DAYS],
        ascending: [...DAYS],
        invalid: [
          ...['2026-02-30', '2026-13-01', '2026-3-4', '2026-03-04T00:00:00Z'].map((value) => ({
            value,
            message,
            domain: true,
          })),
          { value: 20260304, message, restOnly: true },
        ],
      };
    case 'email':
      return { rest: [...EMAILS], ascending: [...EMAILS], invalid: [{ value: 'not-an-email', message, domain: true }] };
    case 'uuid':
      return field.type === 'ref'
        ? { rest: [null, null], ascending: [REFERENCED_ID], invalid: [{ value: 'abc', message, domain: true }] }
        : { rest: [...UUIDS], ascending: [...UUIDS].sort(), invalid: [{ value: 'abc', message, domain: true }] };
    case 'file':
      // Never sent: only an upload sets a file (a body's value, any value, is refused: fileRefusals).
      return { rest: [null, null], ascending: [], invalid: [] };
    case 'choice': {
      const [first, second = first] = facts.values as [string, string?];
      return {
        rest: [first, second!],
        graphql: [first.toUpperCase(), second!.toUpperCase()],
        ascending: [...facts.values].sort(),
        invalid: [{ value: 'nope', message, restOnly: true }],
      };
    }
  }
}

/**
 * What a create stores for a read-only field, which a client may only send back as it is: its
 * default, else null (a required read-only field with no default cannot be created at all).
 */
function createdValue(field: FieldDeclaration): { readonly value: unknown } | undefined {
  if (field.defaultValue !== undefined) return { value: field.defaultValue };
  return field.nullable ? { value: null } : undefined;
}

/** A domain value in its REST JSON form (an instant in RFC 3339, UTC). */
const wireOf = (value: unknown): Json => (value instanceof Date ? value.toISOString() : (value as Json));

/**
 * A field's samples as a client's bodies may carry them: a read-only field's both its created value
 * (the suites' creates and updates send it back as it is), and a valid value other than it, which
 * a client is refused (`is read-only`); the rule's samples otherwise.
 */
export function clientSamples(field: FieldDeclaration): {
  readonly rest: readonly [Json, Json];
  readonly graphql?: readonly [Json, Json];
  readonly other?: Json;
  readonly otherGraphql?: Json;
} {
  const samples = samplesOf(field);
  const created = field.isReadonly ? createdValue(field) : undefined;
  if (!created) return samples;
  const wire = wireOf(created.value);
  const index = samples.rest.findIndex((sample) => sample !== wire && sample !== null);
  const upper = (value: Json) => (field.type === 'enum' && typeof value === 'string' ? value.toUpperCase() : value);
  return {
    rest: [wire, wire],
    ...(samples.graphql ? { graphql: [upper(wire), upper(wire)] } : {}),
    ...(index >= 0 && field.type !== 'ref'
      ? { other: samples.rest[index]!, otherGraphql: (samples.graphql ?? samples.rest)[index]! }
      : {}),
  };
}

/** A sample as the entity holds it (a Date for a datetime; the referenced row's id for a ref). */
export function domainValue(field: FieldDeclaration, sample: Json): unknown {
  if (field.type === 'ref') return REFERENCED_ID;
  return field.type === 'datetime' && typeof sample === 'string' ? new Date(sample) : sample;
}

/**
 * A stored file a `file` field may hold (the repository contract's rows hold it; a body never sets
 * one): of its first type (a range made concrete), its largest size.
 */
export function sampleFile(field: FieldDeclaration, n = 0): StoredFile {
  const type = (field.types ?? ['application/octet-stream'])[0]!.replace('/*', '/png');
  return {
    key: `samples/00000000-0000-4000-8000-${String(n).padStart(12, '0')}/file/${n}`,
    size: field.maxBytes ?? 1,
    contentType: type,
    sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    uploadedAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
  };
}

/** The declared resource as the shared REST, GraphQL and access suites test it. */
export function resourceUnderTest(Entity: DeclaredEntity): ResourceUnderTest {
  const { declaration } = Entity;
  // A file field is never in a body the suites send: each is answered null on their rows (`files`).
  const files = fieldsOf(Entity).filter(([, field]) => field.type === 'file');
  const pascal = declaration.name.replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
  const camel = (snake: string) => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return {
    human: Entity.errors.notFound('').message.replace(/ not found$/, ''),
    collection: `/api/v1/${declaration.plural.replace(/_/g, '-')}`,
    graphql: { type: pascal, one: camel(declaration.name), list: camel(declaration.plural) },
    fields: fieldsOf(Entity)
      .filter(([, field]) => field.type !== 'file')
      .map(([key, field]) => {
        const samples = samplesOf(field);
        const client = clientSamples(field);
        const references = field.references;
        return {
          name: snakeCase(key),
          graphql: key,
          kind: field.type,
          optional: field.nullable,
          sortable: field.sortable,
          samples: client.rest as [Json, Json],
          ...(client.graphql ? { graphqlSamples: client.graphql as [Json, Json] } : {}),
          ...(field.defaultValue !== undefined ? { default: wireOf(field.defaultValue) } : {}),
          ...(field.isReadonly
            ? {
                readOnly: client.other === undefined ? {} : { other: client.other, otherGraphql: client.otherGraphql! },
              }
            : {}),
          invalid: samples.invalid.map(({ value, message, restOnly }) => ({
            value,
            message,
            restOnly: restOnly ?? false,
          })),
          ...(references ? { ref: () => resourceUnderTest(declaredEntity(references.plural)) } : {}),
          ...(field.isUnique && !references ? { unique: true } : {}),
        };
      }),
    ...(files.length > 0 ? { files: files.map(([key]) => ({ name: snakeCase(key), graphql: key })) } : {}),
    ...(declaration.search ? { search: snakeCase(declaration.search) } : {}),
    ...(declaration.owned ? { policy: OWNED_POLICY, owned: true } : { policy: GENERATED_POLICY }),
  };
}

/** The owner of the rows the domain, use case and repository suites make of an owned resource. */
export const OWNER_UNDER_TEST = '00000000-0000-4000-8000-00000000a11c';

/**
 * A valid create input of the entity (camel case), its references naming REFERENCED_ID, a read-only
 * field as created; an owned resource's row owned by OWNER_UNDER_TEST.
 */
export function inputOf(Entity: DeclaredEntity): Record<string, unknown> {
  return {
    ...Object.fromEntries(
      fieldsOf(Entity).map(([key, field]) => [key, domainValue(field, clientSamples(field).rest[0])]),
    ),
    ...(Entity.declaration.owned ? { ownerId: OWNER_UNDER_TEST } : {}),
  };
}

type Updatable = EntityLike & {
  update(changes: object, now: Date): EntityLike;
  requireVersion(v?: readonly number[]): void;
};

/** The entity's rules, as the shared domain and use case suites test them. */
export function entityUnderTest(Entity: DeclaredEntity): EntityUnderTest<EntityLike> {
  const fields = fieldsOf(Entity);
  return {
    human: resourceUnderTest(Entity).human,
    create: (input, now) => Entity.create(input as never, now) as EntityLike,
    update: (entity, changes, now) => (entity as Updatable).update(changes, now),
    requireVersion: (entity, versions) => (entity as Updatable).requireVersion(versions),
    input: inputOf(Entity),
    ...(Entity.declaration.owned ? { caller: { owner: OWNER_UNDER_TEST } } : {}),
    changes: Object.fromEntries(
      fields
        .filter(([, f]) => f.type !== 'ref' && !f.isReadonly)
        .map(([key, f]) => [key, domainValue(f, samplesOf(f).rest[1])]),
    ),
    // A read-only field takes null only where a create stores it (no default).
    optional: fields
      .filter(([, f]) => f.nullable && !(f.isReadonly && f.defaultValue !== undefined))
      .map(([key]) => key),
    defaults: fields
      .filter(([, f]) => f.defaultValue !== undefined)
      .map(([key, f]) => ({ prop: key, value: f.defaultValue as unknown })),
    readOnly: fields.flatMap(([key, f]) => {
      const other = clientSamples(f).other;
      return f.isReadonly && other !== undefined
        ? [{ prop: key, field: snakeCase(key), other: domainValue(f, other) }]
        : [];
    }),
    invalid: fields.flatMap(([key, f]) =>
      samplesOf(f)
        .invalid.filter((invalid) => invalid.domain)
        .map((invalid) => ({ prop: key, field: snakeCase(key), value: invalid.value, message: invalid.message })),
    ),
    notFound: NotFoundError,
    versionMismatch: PreconditionFailedError,
  };
}
