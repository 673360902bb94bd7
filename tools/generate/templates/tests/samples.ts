import type { Bounds, FieldModel } from '../../model.js';

/**
 * Per-field test values, as TypeScript source: two valid samples (as REST answers them), the
 * values each field's rule refuses with its message (the messages of src/domain/shared/fieldRules.ts),
 * and the values the domain and the repository contract use.
 */

/** A value refused for a field: its REST JSON source, the message, and whether GraphQL's own types refuse it first. */
export interface InvalidSample {
  value: string;
  message: string;
  restOnly: boolean;
  /** The same value as the domain sees it, when the domain's rule refuses it too (a value of the field's type). */
  domain?: string;
}

export const quoted = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `must be 1 to 200 characters` (fieldRules' lengthMessage). */
export function lengthMessage(min: number, max: number): string {
  if (min === max) return `must be exactly ${max} characters`;
  return min === 0 ? `must be at most ${max} characters` : `must be ${min} to ${max} characters`;
}

/** `must be a number greater than 0` (fieldRules' numberRule). */
export function numberMessage(bounds: Bounds): string {
  const { min, max, minExclusive, maxExclusive } = bounds;
  if (min !== undefined && max !== undefined) {
    return `must be a number from ${minExclusive ? 'more than ' : ''}${min} to ${maxExclusive ? 'less than ' : ''}${max}`;
  }
  if (min !== undefined) return `must be a number ${minExclusive ? 'greater than' : 'of at least'} ${min}`;
  if (max !== undefined) return `must be a number ${maxExclusive ? 'less than' : 'of at most'} ${max}`;
  return 'must be a finite number';
}

/** A bound of a decimal as the rule states it: with exactly `scale` fraction digits. */
const fixed = (n: number, scale: number): string => n.toFixed(scale);

/** `must be a decimal of at most 10 digits before the point and 2 after, greater than 0.00` (fieldRules' decimalRule). */
export function decimalMessage(f: FieldModel): string {
  const [precision, scale] = [f.precision ?? 15, f.scale ?? 0];
  const integers = precision - scale;
  const digits =
    scale === 0
      ? `a whole number of at most ${integers} digits`
      : `a decimal of at most ${integers} digits before the point and ${scale} after`;
  const { min, max, minExclusive, maxExclusive } = f.bounds;
  const [low, high] = [min === undefined ? '' : fixed(min, scale), max === undefined ? '' : fixed(max, scale)];
  const range =
    min !== undefined && max !== undefined
      ? `from ${minExclusive ? 'more than ' : ''}${low} to ${maxExclusive ? 'less than ' : ''}${high}`
      : min !== undefined
        ? minExclusive
          ? `greater than ${low}`
          : `of at least ${low}`
        : max !== undefined
          ? maxExclusive
            ? `less than ${high}`
            : `of at most ${high}`
          : '';
  return `must be ${digits}${range === '' ? '' : `, ${range}`}`;
}

/** Two decimals inside the field's bounds and digits, as the API answers them (`"19.99"`), in ascending order. */
function decimalsWithin(f: FieldModel): [string, string] {
  const [precision, scale] = [f.precision ?? 15, f.scale ?? 0];
  const { min, max, minExclusive, maxExclusive } = f.bounds;
  const unit = 10 ** -scale;
  const inside = (text: string) => {
    const n = Number(text);
    return (
      text.replace('-', '').split('.')[0]!.replace(/^0+/, '').length <= precision - scale &&
      (min === undefined || (minExclusive ? n > min : n >= min)) &&
      (max === undefined || (maxExclusive ? n < max : n <= max))
    );
  };
  const candidates = [9, 10, 19.99, 5, 250, 0.5, 1, 0, -3.25];
  if (min !== undefined) candidates.push(min, min + unit, min + 1, min + 2 * unit);
  if (max !== undefined) candidates.push(max, max - unit, max - 1, max - 2 * unit);
  const found = [...new Set(candidates.map((n) => fixed(n, scale)))].filter(inside);
  const [a, b = a] = found;
  return [a!, b!].sort((x, y) => Number(x) - Number(y)) as [string, string];
}

const DATETIME_MESSAGE = 'must be a date-time in RFC 3339 format with a time zone';
const UUID_MESSAGE = 'must be a UUID';

/** A text of exactly `length` characters built from `word`. */
const sized = (word: string, length: number): string =>
  word.length >= length ? word.slice(0, length) : word + 'x'.repeat(length - word.length);

/** A text from `word` within the length bounds. */
const fit = (word: string, min: number, max: number): string => sized(word, Math.min(max, Math.max(min, word.length)));

/** Numbers inside the bounds, preferring readable ones. */
function numbersWithin(bounds: Bounds, integer: boolean): [number, number] {
  const { min, max, minExclusive, maxExclusive } = bounds;
  const inside = (n: number) =>
    (min === undefined || (minExclusive ? n > min : n >= min)) &&
    (max === undefined || (maxExclusive ? n < max : n <= max));
  const candidates = integer ? [7, 42, 1, 3, 0, -5, 100, 1000] : [19.99, 5, 0.5, 250, 1, -3.25, 0.001, 1e6];
  const found = candidates.filter(inside);
  if (min !== undefined)
    found.push(...[min, min + 1, min + 0.5].filter((n) => (integer ? Number.isInteger(n) : true) && inside(n)));
  if (max !== undefined)
    found.push(...[max, max - 1, max - 0.5].filter((n) => (integer ? Number.isInteger(n) : true) && inside(n)));
  const distinct = [...new Set(found)];
  return [distinct[0]!, distinct[1] ?? distinct[0]!];
}

const ISO = ['2026-03-04T05:06:07.000Z', '2027-11-12T13:14:15.500Z'] as const;
const EMAILS = ['ada@example.com', 'grace@example.org'] as const;
const UUIDS = ['6f1c2a1e-3b7d-4c2e-9a55-0c8f1d2e3a4b', 'b2e4f6a8-1c3d-4e5f-8a9b-0c1d2e3f4a5b'] as const;

/** Two different valid values of a field, as REST JSON source, exactly as the API answers them. */
export function restSamples(f: FieldModel): [string, string] {
  switch (f.type) {
    case 'string': {
      const [min, max] = [f.bounds.min ?? 1, f.bounds.max ?? 200];
      return [quoted(fit('Walnut desk', min, max)), quoted(fit('Oak chair', min, max))];
    }
    case 'text': {
      const [min, max] = [f.bounds.min ?? 0, f.bounds.max ?? 10000];
      return [quoted(fit('First note', min, max)), quoted(fit('Second note', min, max))];
    }
    case 'integer':
    case 'number':
      return numbersWithin(f.bounds, f.type === 'integer').map(String) as [string, string];
    case 'decimal':
      return decimalsWithin(f).map(quoted) as [string, string];
    case 'boolean':
      return ['true', 'false'];
    case 'datetime':
      return [quoted(ISO[0]), quoted(ISO[1])];
    case 'email':
      return [quoted(EMAILS[0]), quoted(EMAILS[1])];
    case 'uuid':
      return [quoted(UUIDS[0]), quoted(UUIDS[1])];
    case 'enum': {
      const values = f.values ?? [];
      return [quoted(values[0]!), quoted(values[1] ?? values[0]!)];
    }
    case 'ref':
      return ['null', 'null'];
  }
}

/** The GraphQL forms of the samples, when they differ from REST's (enum values upper case). */
export function graphqlSamples(f: FieldModel): [string, string] | undefined {
  if (f.type !== 'enum') return undefined;
  const values = f.values ?? [];
  return [quoted(values[0]!.toUpperCase()), quoted((values[1] ?? values[0]!).toUpperCase())];
}

/** The samples as the domain holds them (Dates for datetimes). */
export function domainSamples(f: FieldModel): [string, string] {
  const [a, b] = restSamples(f);
  return f.type === 'datetime' ? [`new Date(${a})`, `new Date(${b})`] : [a, b];
}

/** A few distinct values of a sortable field in ascending order, as the domain holds them (the repository contract's). */
export function ascendingValues(f: FieldModel): string[] {
  switch (f.type) {
    case 'string':
    case 'text': {
      const [min, max] = [f.bounds.min ?? 0, f.bounds.max ?? 200];
      return ['Alpha', 'Beta', 'Gamma'].map((word) => quoted(fit(word, Math.max(min, 1), max)));
    }
    case 'integer':
    case 'number': {
      const [a, b] = numbersWithin(f.bounds, f.type === 'integer');
      return [...new Set([a, b])].sort((x, y) => x - y).map(String);
    }
    case 'decimal':
      return [...new Set(decimalsWithin(f))].map(quoted);
    case 'boolean':
      return ['false', 'true'];
    case 'datetime':
      return ISO.map((iso) => `new Date(${quoted(iso)})`);
    case 'email':
      return EMAILS.map(quoted);
    case 'uuid':
      return [...UUIDS].sort().map(quoted);
    case 'enum':
      return [...(f.values ?? [])].sort().map(quoted);
    case 'ref':
      return ['REFERENCED_ID'];
  }
}

/** The values each field's rule refuses, with the message (README: Add a resource: the bound is in it). */
export function invalidSamples(f: FieldModel): InvalidSample[] {
  switch (f.type) {
    case 'string':
    case 'text': {
      const [min, max] = [f.bounds.min ?? 0, f.bounds.max ?? 10000];
      const message = lengthMessage(min, max);
      const samples: InvalidSample[] = [];
      if (min > 0) {
        const short = min === 1 ? "''" : `'${'x'.repeat(min - 1)}'`;
        samples.push({ value: short, message, restOnly: false, domain: short });
      }
      const long = `'x'.repeat(${max + 1})`;
      samples.push({ value: long, message, restOnly: false, domain: long });
      samples.push({ value: '42', message, restOnly: true });
      return samples;
    }
    case 'integer': {
      const [min, max] = [f.bounds.min!, f.bounds.max!];
      const message = `must be an integer from ${min} to ${max}`;
      const int32 = (n: number) => n >= -2147483648 && n <= 2147483647;
      return [
        ...[min - 1, max + 1].map((n) => ({ value: String(n), message, restOnly: !int32(n), domain: String(n) })),
        { value: '1.5', message, restOnly: true, domain: '1.5' },
        { value: "'7'", message, restOnly: true },
      ];
    }
    case 'number': {
      const message = numberMessage(f.bounds);
      const { min, max, minExclusive, maxExclusive } = f.bounds;
      const outside: number[] = [];
      if (min !== undefined) outside.push(minExclusive ? min : min - 1);
      if (max !== undefined) outside.push(maxExclusive ? max : max + 1);
      if (min !== undefined && minExclusive) outside.push(min - 1);
      return [
        ...outside.map((n) => ({ value: String(n), message, restOnly: false, domain: String(n) })),
        { value: "'10'", message, restOnly: true },
      ];
    }
    case 'decimal': {
      const [precision, scale] = [f.precision ?? 15, f.scale ?? 0];
      const message = decimalMessage(f);
      const [inside] = decimalsWithin(f);
      const { min, max, minExclusive, maxExclusive } = f.bounds;
      const unit = 10 ** -scale;
      const refused = [
        `${inside}${scale === 0 ? '.' : ''}1`,
        '1'.repeat(precision - scale + 1),
        ...(min !== undefined ? [fixed(minExclusive ? min : min - unit, scale)] : []),
        ...(max !== undefined ? [fixed(maxExclusive ? max : max + unit, scale)] : []),
      ];
      return [
        ...[...new Set(refused)].map((text) => ({
          value: quoted(text),
          message,
          restOnly: false,
          domain: quoted(text),
        })),
        { value: 'true', message, restOnly: true },
      ];
    }
    case 'boolean':
      return [{ value: "'yes'", message: 'must be true or false', restOnly: true }];
    case 'datetime':
      return [
        { value: quoted('2026-03-04T05:06:07'), message: DATETIME_MESSAGE, restOnly: true },
        { value: quoted('soon'), message: DATETIME_MESSAGE, restOnly: true },
      ];
    case 'email':
      return [
        {
          value: quoted('not-an-email'),
          message: 'must be a valid e-mail address',
          restOnly: false,
          domain: quoted('not-an-email'),
        },
      ];
    case 'uuid':
    case 'ref':
      return [{ value: quoted('abc'), message: UUID_MESSAGE, restOnly: false, domain: quoted('abc') }];
    case 'enum':
      return [{ value: quoted('nope'), message: `must be one of ${(f.values ?? []).join(', ')}`, restOnly: true }];
  }
}
