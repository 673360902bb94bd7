import { EMAIL_MAX_LENGTH, isValidEmail, normalizeEmail, parseEmail } from '../user/Email.js';
import {
  decimalParts,
  DECIMAL_MAX_PRECISION,
  formatUnits,
  NumberText,
  numberParts,
  unitsOf,
  unitsOfParts,
  type DecimalParts,
} from './Decimal.js';
import { ValidationError, type FieldViolation } from './DomainError.js';
import { storedFileProblem, type StoredFile } from './files.js';
import { hasInvisibleCharacters, INVISIBLE_MESSAGE, textProblem } from './Text.js';

/** A client's value read into the stored form, or why it cannot be one (a "must …" message). */
export type Reading<T> = { readonly value: T } | { readonly problem: string };

/**
 * The rule of one field of a resource (README: Add a resource field types). The entity guards its fields
 * with `violation`; the inbound codecs read client input with `read`, so one rule gives one
 * message in the domain, REST and GraphQL.
 */
export interface FieldRule<T> {
  /** What a value must be, naming the bounds (`must be 1 to 200 characters`). */
  readonly message: string;
  /** The same rule as facts (kind, bounds, values), for an adapter to state in its own vocabulary. */
  readonly facts: FieldFacts;
  /** Why a value in its stored form breaks the rule; `undefined` when it keeps it. Guards the type too. */
  violation(value: unknown): string | undefined;
  /** Reads a value as a client sent it (text trimmed, e-mails normalized, RFC 3339 parsed). */
  read(raw: unknown): Reading<T>;
}

/**
 * What a field's rule allows, as plain facts in the domain's terms (lengths in characters, after
 * trimming), so that an adapter can state the rule it enforces — the API document as JSON Schema —
 * without restating it.
 */
export type FieldFacts =
  | { readonly kind: 'text'; readonly length: { readonly min: number; readonly max: number } }
  | { readonly kind: 'email'; readonly maxLength: number }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'integer'; readonly range: { readonly min: number; readonly max: number } }
  | { readonly kind: 'number'; readonly range: Range }
  | {
      readonly kind: 'decimal';
      readonly precision: number;
      readonly scale: number;
      /** The bounds in canonical decimal text (`"0.00"`). */
      readonly range: Range<string>;
    }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'datetime' }
  | { readonly kind: 'date' }
  | { readonly kind: 'choice'; readonly values: readonly string[] }
  | { readonly kind: 'file'; readonly types: readonly string[]; readonly maxBytes: number };

/** A value range: inclusive unless marked exclusive; either end may be open. */
export interface Range<V = number> {
  readonly min?: V;
  readonly max?: V;
  readonly minExclusive?: boolean;
  readonly maxExclusive?: boolean;
}

function ruleOf<T>(
  message: string,
  facts: FieldFacts,
  violation: (value: unknown) => string | undefined,
  normalize?: (raw: unknown) => Reading<T>,
): FieldRule<T> {
  const checked = (value: unknown): Reading<T> => {
    const problem = violation(value);
    return problem === undefined ? { value: value as T } : { problem };
  };
  return {
    message,
    facts,
    violation,
    read: (raw) => {
      if (!normalize) return checked(raw);
      const normalized = normalize(raw);
      return 'problem' in normalized ? normalized : checked(normalized.value);
    },
  };
}

const lengthMessage = (min: number, max: number): string =>
  min === max
    ? `must be exactly ${max} characters`
    : min === 0
      ? `must be at most ${max} characters`
      : `must be ${min} to ${max} characters`;

/** Trimmed, well-formed text (no NUL, no lone surrogate) of `min` to `max` characters (code points). */
function lengthRule(min: number, max: number, visibleOnly: boolean): FieldRule<string> {
  const message = lengthMessage(min, max);
  return ruleOf<string>(
    message,
    { kind: 'text', length: { min, max } },
    (value) => {
      if (typeof value !== 'string') return message;
      const problem = textProblem(value);
      if (problem !== undefined) return problem;
      if (visibleOnly && hasInvisibleCharacters(value)) return INVISIBLE_MESSAGE;
      const length = [...value].length;
      return value.trim() !== value || length < min || length > max ? message : undefined;
    },
    (raw) => {
      if (typeof raw !== 'string') return { problem: message };
      const problem = textProblem(raw);
      if (problem !== undefined) return { problem };
      // Looked for before trimming, so a leading byte-order mark is refused, not trimmed away.
      if (visibleOnly && hasInvisibleCharacters(raw)) return { problem: INVISIBLE_MESSAGE };
      return { value: raw.trim() };
    },
  );
}

/** `string`: trimmed, `min` to `max` characters, nothing invisible (names people read and compare). */
export const stringRule = (min: number, max: number): FieldRule<string> => lengthRule(min, max, true);

/** `text`: trimmed, `min` to `max` characters; line breaks and any visible or invisible character allowed. */
export const textRule = (min: number, max: number): FieldRule<string> => lengthRule(min, max, false);

const INT32 = { min: -2147483648, max: 2147483647 };

/** `integer`: a whole number from `min` to `max` (both inclusive), within the signed 32-bit range. */
export function integerRule(min: number = INT32.min, max: number = INT32.max): FieldRule<number> {
  const message = `must be an integer from ${min} to ${max}`;
  const facts: FieldFacts = {
    kind: 'integer',
    range: { min: Math.max(min, INT32.min), max: Math.min(max, INT32.max) },
  };
  return ruleOf(message, facts, (value) =>
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < Math.max(min, INT32.min) ||
    value > Math.min(max, INT32.max)
      ? message
      : undefined,
  );
}

function rangeText(range: Range<number | string>): string {
  const { min, max, minExclusive, maxExclusive } = range;
  if (min !== undefined && max !== undefined) {
    return `from ${minExclusive ? 'more than ' : ''}${min} to ${maxExclusive ? 'less than ' : ''}${max}`;
  }
  if (min !== undefined) return minExclusive ? `greater than ${min}` : `of at least ${min}`;
  if (max !== undefined) return maxExclusive ? `less than ${max}` : `of at most ${max}`;
  return '';
}

/** `number`: a finite number within the range (`must be a number greater than 0`). */
export function numberRule(range: Range = {}): FieldRule<number> {
  const bounds = rangeText(range);
  const message = bounds === '' ? 'must be a finite number' : `must be a number ${bounds}`;
  const { min, max, minExclusive, maxExclusive } = range;
  const belowMin = (n: number) => min !== undefined && (minExclusive ? n <= min : n < min);
  const aboveMax = (n: number) => max !== undefined && (maxExclusive ? n >= max : n > max);
  const facts: FieldFacts = { kind: 'number', range };
  return ruleOf(message, facts, (value) =>
    typeof value !== 'number' || !Number.isFinite(value) || belowMin(value) || aboveMax(value) ? message : undefined,
  );
}

/**
 * `decimal(precision, scale)`: an exact decimal of at most `precision` digits, `scale` of them after
 * the point, within the range (bounds as numbers or decimal text: `{ min: '0', minExclusive: true }`).
 * Stored as its canonical text with exactly `scale` fraction digits (`"12.50"`); read from plain
 * decimal text, or from a number by its own text (`NumberText`: a JSON number or a GraphQL literal
 * as written, exponent allowed), never rounded: a third fraction digit at scale 2 is refused, and
 * so is an exponent that would place digits beyond the precision, before they are placed.
 */
export function decimalRule(precision: number, scale: number, range: Range<number | string> = {}): FieldRule<string> {
  if (!Number.isInteger(precision) || precision < 1 || precision > DECIMAL_MAX_PRECISION)
    throw new Error(`decimal(${precision},${scale}): the precision is 1 to ${DECIMAL_MAX_PRECISION} digits`);
  if (!Number.isInteger(scale) || scale < 0 || scale > precision)
    throw new Error(`decimal(${precision},${scale}): the scale is 0 to the precision`);
  const integerDigits = precision - scale;
  const bound = (value: number | string | undefined): bigint | undefined => {
    if (value === undefined) return undefined;
    const units = unitsOf(String(value), scale);
    if (units === undefined) throw new Error(`decimal(${precision},${scale}): the bound ${value} is not of that scale`);
    return units;
  };
  const [min, max] = [bound(range.min), bound(range.max)];
  const canonical: Range<string> = {
    ...(min !== undefined ? { min: formatUnits(min, scale) } : {}),
    ...(range.minExclusive ? { minExclusive: true } : {}),
    ...(max !== undefined ? { max: formatUnits(max, scale) } : {}),
    ...(range.maxExclusive ? { maxExclusive: true } : {}),
  };
  const bounds = rangeText(canonical);
  const digits =
    scale === 0
      ? `a whole number of at most ${integerDigits} digits`
      : `a decimal of at most ${integerDigits} digits before the point and ${scale} after`;
  const message = `must be ${digits}${bounds === '' ? '' : `, ${bounds}`}`;
  const inRange = (units: bigint): boolean =>
    !(min !== undefined && (range.minExclusive ? units <= min : units < min)) &&
    !(max !== undefined && (range.maxExclusive ? units >= max : units > max));
  const limits = { integer: integerDigits, fraction: scale };
  const unitsWithin = (parts: DecimalParts | undefined): bigint | undefined => {
    if (!parts || parts.fraction.length > scale || parts.integer.replace(/^0$/, '').length > integerDigits)
      return undefined;
    const units = unitsOfParts(parts, scale);
    return units !== undefined && inRange(units) ? units : undefined;
  };
  /** A client's value as parts: text as plain digits; a number by its text, its exponent weighed first. */
  const partsOf = (raw: unknown): DecimalParts | undefined => {
    if (typeof raw === 'string') return decimalParts(raw.trim());
    if (raw instanceof NumberText) return numberParts(raw.text, limits);
    // A bare number has lost the digits a double cannot hold; `String` gives the shortest text that is it.
    if (typeof raw === 'number' && Number.isFinite(raw)) return numberParts(String(raw), limits);
    return undefined;
  };
  return ruleOf<string>(
    message,
    { kind: 'decimal', precision, scale, range: canonical },
    (value) => {
      if (typeof value !== 'string') return message;
      const units = unitsWithin(decimalParts(value));
      return units !== undefined && formatUnits(units, scale) === value ? undefined : message;
    },
    (raw) => {
      const units = unitsWithin(partsOf(raw));
      return units === undefined ? { problem: message } : { value: formatUnits(units, scale) };
    },
  );
}

const BOOLEAN = ruleOf<boolean>('must be true or false', { kind: 'boolean' }, (value) =>
  typeof value === 'boolean' ? undefined : 'must be true or false',
);

/** `boolean`: `true` or `false`. */
export const booleanRule = (): FieldRule<boolean> => BOOLEAN;

/** RFC 3339 with a zone (`Z` or an offset); fractions of a second allowed. */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** A date-time text as a Date, or `undefined` unless it is RFC 3339 with a zone naming a real day and time. */
function parseDateTime(text: string): Date | undefined {
  const match = RFC_3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second, offsetHours = '0', offsetMinutes = '0'] = match.slice(1).map(Number);
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day!) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59 || Number(offsetHours) > 23 || Number(offsetMinutes) > 59)
    return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const DATETIME_MESSAGE = 'must be a date-time in RFC 3339 format with a time zone';
const DATETIME = ruleOf<Date>(
  DATETIME_MESSAGE,
  { kind: 'datetime' },
  (value) => (value instanceof Date && !Number.isNaN(value.getTime()) ? undefined : DATETIME_MESSAGE),
  (raw) => {
    if (raw instanceof Date) return { value: raw };
    const date = typeof raw === 'string' ? parseDateTime(raw) : undefined;
    return date ? { value: date } : { problem: DATETIME_MESSAGE };
  },
);

/** `datetime`: a valid Date; read from RFC 3339 with a zone. */
export const datetimeRule = (): FieldRule<Date> => DATETIME;

/** A calendar date, `YYYY-MM-DD` (years 0001 to 9999). */
const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether a text is a calendar date naming a real day (`2026-02-30` is not one). */
export function isCalendarDate(text: string): boolean {
  const match = CALENDAR_DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return year >= 1 && day >= 1 && day <= days;
}

const DATE_MESSAGE = 'must be a date (YYYY-MM-DD)';
const DATE = ruleOf<string>(
  DATE_MESSAGE,
  { kind: 'date' },
  (value) => (typeof value === 'string' && isCalendarDate(value) ? undefined : DATE_MESSAGE),
  (raw) => (typeof raw === 'string' ? { value: raw.trim() } : { problem: DATE_MESSAGE }),
);

/**
 * `date`: a calendar date with no time and no zone, `YYYY-MM-DD`, a real day; its value is that
 * text, which sorts chronologically as it is.
 */
export const dateRule = (): FieldRule<string> => DATE;

const EMAIL_MESSAGE = 'must be a valid e-mail address';
const EMAIL = ruleOf<string>(
  EMAIL_MESSAGE,
  { kind: 'email', maxLength: EMAIL_MAX_LENGTH },
  (value) => {
    if (typeof value !== 'string') return EMAIL_MESSAGE;
    const problem = textProblem(value);
    if (problem !== undefined) return problem;
    if (hasInvisibleCharacters(value)) return INVISIBLE_MESSAGE;
    return normalizeEmail(value) === value && isValidEmail(value) ? undefined : EMAIL_MESSAGE;
  },
  (raw) => {
    if (typeof raw !== 'string') return { problem: EMAIL_MESSAGE };
    const parsed = parseEmail(raw);
    return 'problem' in parsed ? parsed : { value: parsed.email };
  },
);

/** `email`: the users' e-mail rule — NFKC-normalized, trimmed, lower-cased, then checked. */
export const emailRule = (): FieldRule<string> => EMAIL;

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_MESSAGE = 'must be a UUID';
const UUID = ruleOf<string>(
  UUID_MESSAGE,
  { kind: 'uuid' },
  (value) => (typeof value === 'string' && UUID_SHAPE.test(value) ? undefined : UUID_MESSAGE),
  (raw) => (typeof raw === 'string' ? { value: raw.toLowerCase() } : { problem: UUID_MESSAGE }),
);

/** `uuid` and `ref`: a UUID, stored in lower case (as ids are). */
export const uuidRule = (): FieldRule<string> => UUID;

/** `enum`: one of the listed values, exactly as listed. */
export function enumRule<V extends string>(values: readonly V[]): FieldRule<V> {
  const message = `must be one of ${values.join(', ')}`;
  return ruleOf<V>(message, { kind: 'choice', values }, (value) =>
    typeof value === 'string' && (values as readonly string[]).includes(value) ? undefined : message,
  );
}

/** What a client's value of a `file` field is told: the file is set by uploading it, never in an item's body. */
export const UPLOADED_ONLY = 'is set by uploading the file';

/**
 * `file`: a stored file (the object's key, size, type, SHA-256 and upload time) of one of `types`
 * and at most `maxBytes`. Only the service makes one, from an upload; a client's value is refused.
 */
export function fileRule(types: readonly string[], maxBytes: number): FieldRule<StoredFile> {
  const facts: FieldFacts = { kind: 'file', types, maxBytes };
  return {
    message: UPLOADED_ONLY,
    facts,
    violation: (value) => storedFileProblem(value, types, maxBytes),
    read: () => ({ problem: UPLOADED_ONLY }),
  };
}

/** An optional field: `null` (no value) or a value that keeps `rule`. */
export function optional<T>(rule: FieldRule<T>): FieldRule<T | null> {
  return {
    message: rule.message,
    facts: rule.facts,
    violation: (value) => (value === null ? undefined : rule.violation(value)),
    read: (raw) => (raw === null ? { value: null } : rule.read(raw)),
  };
}

/** The value type a rule keeps. */
export type ValueOf<R> = R extends FieldRule<infer T> ? T : never;

/**
 * Checks every present value against its field's rule (`undefined` is absent and not checked) and
 * throws one ValidationError listing every failing field, by the rules' (JSON) names, in their order.
 */
export function guardFields<R extends Readonly<Record<string, FieldRule<unknown>>>>(
  rules: R,
  values: { readonly [K in keyof R]?: ValueOf<R[K]> },
): void {
  const violations: FieldViolation[] = [];
  for (const [field, rule] of Object.entries(rules)) {
    const value: unknown = values[field];
    if (value === undefined) continue;
    const message = rule.violation(value);
    if (message !== undefined) violations.push({ field, message });
  }
  if (violations.length > 0) throw new ValidationError(violations);
}
