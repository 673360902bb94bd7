import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { NumberText } from '../../../domain/shared/Decimal.js';
import { ValidationError, type FieldViolation } from '../../../domain/shared/DomainError.js';
import type { FieldFacts, FieldRule as DomainFieldRule } from '../../../domain/shared/fieldRules.js';
import { hasInvisibleCharacters, INVISIBLE_MESSAGE, textProblem } from '../../../domain/shared/Text.js';
import { jsonNumberTexts } from './jsonNumbers.js';
import { closedObject, nullableSchema, type JsonSchema } from './jsonSchema.js';
import { formatSize } from '../../../domain/shared/files.js';

/**
 * Field codecs shared by the REST and GraphQL adapters, so one rule gives one message in both.
 * Each codec's `name` is the message shown when a value breaks it ("must be …"), and its `schema`
 * states the same rule for the API document (README: API document), so the document is read off the codecs
 * the routes decode with.
 */
export type FieldCodec<A> = t.Type<A, unknown, unknown> & DocumentedDecoder<A>;

/** A decoder that states its rule: what a shape's fields are. */
export interface DocumentedDecoder<A> extends t.Decoder<unknown, A> {
  /** The rule as JSON Schema: type, bounds, format, values. */
  readonly schema: JsonSchema;
  /** Wants a number by its own text (`NumberText`), not the double JSON.parse made of it: an exact decimal's. */
  readonly numberText?: true;
}

/** Why a value breaks a rule, when the rule has more than one way to be broken. */
export class Problem {
  constructor(readonly message: string) {}
}

/**
 * A codec from a parse function: `undefined` means the value breaks the rule (reported with
 * `message`), a `Problem` says how it breaks it; `schema` says the rule for the API document.
 */
export const rule = <A>(
  message: string,
  parse: (u: unknown) => A | Problem | undefined,
  schema: JsonSchema,
): FieldCodec<A> =>
  Object.assign(
    new t.Type<A, unknown, unknown>(
      message,
      (u): u is A => {
        const value = parse(u);
        return value !== undefined && !(value instanceof Problem);
      },
      (u, c) => {
        const value = parse(u);
        if (value === undefined) return t.failure(u, c);
        if (value instanceof Problem) return t.failure(u, c, value.message);
        return t.success(value);
      },
      (a) => a,
    ),
    { schema: { ...schema, description: schema.description ?? capitalized(message) } },
  );

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Trimmed text whose length (in characters, after trimming) is within bounds. */
export const trimmedText = (
  min: number,
  max: number,
  message = `must be ${min} to ${max} characters`,
): FieldCodec<string> =>
  rule(
    message,
    (u) => {
      if (typeof u !== 'string') return undefined;
      const text = u.trim();
      const length = [...text].length;
      return length >= min && length <= max ? text : undefined;
    },
    { type: 'string', minLength: min, maxLength: max },
  );

/** Like `trimmedText`, for text shown to people (names): no invisible characters either (docs/lists.md). */
export const visibleText = (
  min: number,
  max: number,
  example?: string,
  /** A further rule of the trimmed text: why it breaks it, or undefined. */
  further?: (text: string) => string | undefined,
): FieldCodec<string> => {
  const text = trimmedText(min, max);
  return rule(
    text.name,
    (u) => {
      if (typeof u === 'string' && hasInvisibleCharacters(u)) return new Problem(INVISIBLE_MESSAGE);
      const decoded = text.decode(u);
      if (isLeft(decoded)) return undefined;
      const problem = further?.(decoded.right);
      return problem === undefined ? decoded.right : new Problem(problem);
    },
    example === undefined ? text.schema : { ...text.schema, examples: [example] },
  );
};

/**
 * A domain rule for one field (the domain's FieldRule): `violation` says why a value of the right
 * type breaks it, or `undefined` when it does not; `facts` state it for the API document. The
 * codecs below only read the JSON type (and normalize text); the rule gives the message, so REST,
 * GraphQL and the domain say the same thing.
 */
export type FieldRule<V> = Pick<DomainFieldRule<V>, 'facts'> & { violation(value: V): string | undefined };

const checked = <V>(value: V, fieldRule: FieldRule<V>): V | Problem => {
  const problem = fieldRule.violation(value);
  return problem === undefined ? value : new Problem(problem);
};

/**
 * A value of another JSON type is reported as the rule reports it (the domain's rules guard the type
 * too, so `notes: 42` says what `notes` must be, like the domain would), else as the rule reports an
 * empty value of the right type (`''`, `NaN`), else with `fallback`.
 */
const typeMessage = <V>(fieldRule: FieldRule<V>, empty: V, fallback: string): string =>
  fieldRule.violation(undefined as V) ?? fieldRule.violation(empty) ?? fallback;

/** A domain rule's facts as JSON Schema: how the API document states the rule. */
export function schemaOfFacts(facts: FieldFacts): JsonSchema {
  switch (facts.kind) {
    case 'text':
      return { type: 'string', minLength: facts.length.min, maxLength: facts.length.max };
    case 'email':
      return { type: 'string', format: 'email', maxLength: facts.maxLength };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'integer':
      return { type: 'integer', minimum: facts.range.min, maximum: facts.range.max };
    case 'number': {
      const { min, max, minExclusive, maxExclusive } = facts.range;
      return {
        type: 'number',
        ...(min === undefined ? {} : minExclusive ? { exclusiveMinimum: min } : { minimum: min }),
        ...(max === undefined ? {} : maxExclusive ? { exclusiveMaximum: max } : { maximum: max }),
      };
    }
    case 'decimal': {
      const { min, max, minExclusive, maxExclusive } = facts.range;
      const integers = facts.precision - facts.scale;
      const fraction = facts.scale === 0 ? '' : `(\\.\\d{1,${facts.scale}})?`;
      // decimal(2,2) has no integer digits: only 0 before the point.
      const whole = integers === 0 ? '0' : `\\d{1,${integers}}`;
      const example = `${integers === 0 ? '0' : '1'}${facts.scale === 0 ? '' : `.${'5'.padEnd(facts.scale, '0')}`}`;
      return {
        // Taken as text or a JSON number; always answered as text with exactly `scale` fraction digits.
        type: ['string', 'number'],
        pattern: `^-?${whole}${fraction}$`,
        ...(min === undefined ? {} : minExclusive ? { exclusiveMinimum: Number(min) } : { minimum: Number(min) }),
        ...(max === undefined ? {} : maxExclusive ? { exclusiveMaximum: Number(max) } : { maximum: Number(max) }),
        examples: [example],
      };
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'choice':
      return { type: 'string', enum: [...facts.values] };
    case 'file':
      return fileSchema(facts.types, facts.maxBytes);
  }
}

/**
 * A `file` field as an item answers it: `{url, size, content_type, sha256}` (or null), read-only —
 * set by uploading the file, never by a body.
 */
export function fileSchema(types: readonly string[], maxBytes: number): JsonSchema {
  return {
    ...closedObject({
      url: {
        type: 'string',
        format: 'uri-reference',
        description:
          "A signed link to the file, valid for storage.url_ttl: the store's own (S3), or the service's /files/ (local; relative to the API's origin unless storage.public_url is set)",
        examples: ['https://files.example.com/f/7d0c6b1e?expires=1768469400&signature=0f3a'],
      },
      size: { type: 'integer', minimum: 0, description: 'Its size in bytes', examples: [48213] },
      content_type: {
        type: 'string',
        description: 'Its media type',
        examples: [(types[0] ?? 'application/octet-stream').replace('/*', '/png')],
      },
      sha256: {
        type: 'string',
        pattern: '^[0-9a-f]{64}$',
        description: 'Its SHA-256, lower-case hex',
        examples: ['e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
      },
    }),
    readOnly: true,
    description: `A file of ${types.join(', ')}, at most ${formatSize(maxBytes)}: set by uploading it, never by a body`,
  };
}

/** A `file` field in a body: refused whatever its value (`null` included), as only an upload sets it. */
export const fileField = (fieldRule: Pick<DomainFieldRule<unknown>, 'facts' | 'message'>): FieldCodec<never> =>
  rule<never>(fieldRule.message, () => new Problem(fieldRule.message), schemaOfFacts(fieldRule.facts));

/** A codec over a domain rule: the message from the rule, the schema its facts. */
const ruled = <V, A = V>(
  fieldRule: FieldRule<V>,
  empty: V,
  fallback: string,
  parse: (u: unknown) => A | Problem | undefined,
): FieldCodec<A> => rule(typeMessage(fieldRule, empty, fallback), parse, schemaOfFacts(fieldRule.facts));

/** Text (`string` and `text` fields): none of it invisible (looked for before trimming), trimmed, then the rule. */
export const stringField = (fieldRule: FieldRule<string>): FieldCodec<string> =>
  ruled(fieldRule, '', 'must be a string', (u) => {
    if (typeof u !== 'string') return undefined;
    if (hasInvisibleCharacters(u)) return new Problem(INVISIBLE_MESSAGE);
    return checked(u.trim(), fieldRule);
  });

/** A JSON integer (`10.5` and `"10"` are refused), then the rule (its range). */
export const integerField = (fieldRule: FieldRule<number>): FieldCodec<number> =>
  ruled(fieldRule, Number.NaN, 'must be an integer', (u) =>
    Number.isInteger(u) ? checked(u as number, fieldRule) : undefined,
  );

/** A JSON number (a string such as `"10"` is refused), then the rule. */
export const numberField = (fieldRule: FieldRule<number>): FieldCodec<number> =>
  ruled(fieldRule, Number.NaN, 'must be a number', (u) => (typeof u === 'number' ? checked(u, fieldRule) : undefined));

/**
 * An exact decimal (`decimal(p,s)`): text, or a number — best by its own text (`NumberText`), as the
 * adapters hand it on — read without rounding into canonical text.
 */
export const decimalField = (fieldRule: DomainFieldRule<string>): FieldCodec<string> =>
  Object.assign(
    ruled(fieldRule, '', 'must be a decimal', (u) => {
      if (typeof u !== 'string' && typeof u !== 'number' && !(u instanceof NumberText)) return undefined;
      const read = fieldRule.read(u);
      return 'problem' in read ? new Problem(read.problem) : read.value;
    }),
    { numberText: true as const },
  );

/** `true` or `false`. */
export const booleanField = (): FieldCodec<boolean> =>
  rule('must be true or false', (u) => (typeof u === 'boolean' ? u : undefined), { type: 'boolean' });

/** RFC 3339 §5.6 with a time zone (`Z` or `±hh:mm`). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Whether a text is an RFC 3339 date-time with a zone, every field in its range (§5.7): `Date.parse`
 * alone would roll `2026-02-30` over to March and `24:00` to the next day instead of refusing them.
 * (A leap second `:60` cannot be a JavaScript Date, so it is refused too.)
 */
export function isRfc3339(text: string): boolean {
  const match = RFC3339.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  const offsetOk = match[8] === undefined || (Number(match[8]) <= 23 && Number(match[9]) <= 59);
  return (
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetOk &&
    !Number.isNaN(Date.parse(text))
  );
}

/**
 * An instant: an RFC 3339 date-time with a zone (REST), or the Date GraphQL's `DateTime` scalar
 * already parsed; then the rule. Answered in UTC with `Z` (`toISOString`).
 */
export const dateTimeField = (fieldRule: FieldRule<Date>): FieldCodec<Date> =>
  ruled(fieldRule, new Date(Number.NaN), 'must be a date-time in RFC 3339 format with a time zone', (u) => {
    if (u instanceof Date) return Number.isNaN(u.getTime()) ? undefined : checked(u, fieldRule);
    return typeof u === 'string' && isRfc3339(u.trim()) ? checked(new Date(u.trim()), fieldRule) : undefined;
  });

/** A calendar date, `YYYY-MM-DD` (REST and GraphQL's `Date` scalar alike: text), trimmed, then the rule. */
export const dateField = (fieldRule: FieldRule<string>): FieldCodec<string> =>
  ruled(fieldRule, '', 'must be a date (YYYY-MM-DD)', (u) =>
    typeof u === 'string' ? checked(u.trim(), fieldRule) : undefined,
  );

/** An e-mail: NFKC-normalized, trimmed, lower-cased (invisible characters looked for first), then the rule. */
export const emailField = (fieldRule: FieldRule<string>): FieldCodec<string> =>
  ruled(fieldRule, '', 'must be a valid e-mail address', (u) => {
    if (typeof u !== 'string') return undefined;
    if (hasInvisibleCharacters(u.normalize('NFKC'))) return new Problem(INVISIBLE_MESSAGE);
    return checked(u.normalize('NFKC').trim().toLowerCase(), fieldRule);
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID (lower-cased), then the rule; a `ref` field is one too (its row's existence is the repository's to check). */
export const uuidField = (fieldRule: FieldRule<string>): FieldCodec<string> =>
  ruled(fieldRule, '', 'must be a UUID', (u) =>
    typeof u === 'string' && UUID.test(u.trim()) ? checked(u.trim().toLowerCase(), fieldRule) : undefined,
  );

/** One of an enum's values, exactly as listed (the rule lists them); `V` is the domain's union of them. */
export const enumField = <V extends string>(fieldRule: FieldRule<string>): FieldCodec<V> =>
  ruled(fieldRule, '', 'must be one of the listed values', (u) =>
    typeof u === 'string' ? (checked(u, fieldRule) as V | Problem) : undefined,
  );

/** An optional field's codec: `null` is a value too (an update's `null` clears the field). */
export const nullable = <A>(codec: FieldCodec<A>): FieldCodec<A | null> =>
  Object.assign(
    rule(
      codec.name,
      (u) => {
        if (u === null) return null;
        const decoded = codec.decode(u);
        if (!isLeft(decoded)) return decoded.right;
        const message = decoded.left[0]?.message;
        return message === undefined ? undefined : new Problem(message);
      },
      nullableSchema(codec.schema),
    ),
    codec.numberText ? { numberText: true as const } : {},
  );

/** One field of an object shape: its codec and whether it must be present. */
export interface FieldSpec<A, R extends boolean = boolean> {
  readonly codec: DocumentedDecoder<A>;
  readonly required: R;
}

export const required = <A>(codec: FieldCodec<A>): FieldSpec<A, true> => ({ codec, required: true });
export const optional = <A>(codec: FieldCodec<A>): FieldSpec<A, false> => ({ codec, required: false });

export type Shape = Record<string, FieldSpec<unknown>>;
export type Decoded<S extends Shape> = {
  [K in keyof S as S[K]['required'] extends true ? K : never]: S[K] extends FieldSpec<infer A, boolean> ? A : never;
} & {
  [K in keyof S as S[K]['required'] extends true ? never : K]?: S[K] extends FieldSpec<infer A, boolean> ? A : never;
};

/** A field's JSON name in REST: `dueAt` → `due_at` (a snake name stays as it is). */
export const snakeName = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * Decodes an object against a shape, reporting every failing field at once (by its client-facing
 * name, `wireName` of its key) as a ValidationError. Unknown fields are ignored; an absent optional
 * field stays absent; `null` is a value like any other and must pass the codec.
 */
export function decodeFields<S extends Shape>(
  shape: S,
  input: unknown,
  what = 'body',
  wireName: (key: string) => string = (key) => key,
): Decoded<S> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError([{ field: what, message: 'must be a JSON object' }]);
  }
  const source = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const [key, spec] of Object.entries(shape)) {
    const name = wireName(key);
    const value = Object.hasOwn(source, name) ? source[name] : undefined;
    if (value === undefined) {
      if (spec.required) violations.push({ field: name, message: 'is required' });
      continue;
    }
    // Every text field, whatever its own rule: no NUL, no lone surrogate.
    const problem = typeof value === 'string' ? textProblem(value) : undefined;
    if (problem !== undefined) {
      violations.push({ field: name, message: problem });
      continue;
    }
    const decoded = spec.codec.decode(value);
    if (isLeft(decoded)) violations.push({ field: name, message: decoded.left[0]?.message ?? spec.codec.name });
    else out[key] = decoded.right;
  }
  if (violations.length > 0) throw new ValidationError(violations);
  return out as Decoded<S>;
}

/**
 * A REST body: the shape's keys are the domain's (camel case), the body's names their snake case.
 * Given the body's `text` (what JSON.parse read), a field whose codec reads numbers by their text
 * (an exact decimal) and that holds a number is handed that number's source text: `0.10000000000000001`
 * is then refused for its digits, not taken as the double 0.1. Other bodies are decoded as parsed.
 */
export function decodeBody<S extends Shape>(shape: S, body: unknown, text?: string): Decoded<S> {
  return decodeFields(shape, text === undefined ? body : withNumberTexts(shape, body, text), 'body', snakeName);
}

/** Per shape: the body names of its fields read by their number text (none for most shapes). */
const numberTextNames = new WeakMap<Shape, readonly string[]>();

function numberTextNamesOf(shape: Shape): readonly string[] {
  let names = numberTextNames.get(shape);
  if (!names) {
    names = Object.entries(shape)
      .filter(([, spec]) => spec.codec.numberText)
      .map(([key]) => snakeName(key));
    numberTextNames.set(shape, names);
  }
  return names;
}

/** `body` with each number a `numberText` field holds replaced by its source text in `text`; itself when none. */
function withNumberTexts(shape: Shape, body: unknown, text: string): unknown {
  const candidates = numberTextNamesOf(shape);
  if (candidates.length === 0 || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const values = body as Record<string, unknown>;
  const names = candidates.filter((name) => Object.hasOwn(values, name) && typeof values[name] === 'number');
  if (names.length === 0) return body;
  const texts = jsonNumberTexts(
    text,
    names.map((name) => [name]),
  );
  const read = { ...values };
  names.forEach((name, index) => {
    const source = texts[index];
    if (source !== undefined) read[name] = new NumberText(source);
  });
  return read;
}
