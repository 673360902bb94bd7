import { GraphQLError, Kind, type GraphQLScalarType, type ValueNode } from 'graphql';

/** RFC 3339 date-time with a zone (`Z` or `±hh:mm`). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * The shape and every field's range (RFC 3339 §5.7): `Date.parse` alone would roll `2026-02-30`
 * over to March and `24:00` to the next day instead of refusing them. (A leap second `:60`
 * cannot be a JavaScript Date, so it is refused too.)
 */
function isRfc3339(text: string): boolean {
  const match = RFC3339.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  const offsetOk = match[8] === undefined || (Number(match[8]) <= 23 && Number(match[9]) <= 59);
  return day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetOk;
}

function parse(value: unknown): Date {
  if (typeof value !== 'string' || !isRfc3339(value) || Number.isNaN(Date.parse(value))) {
    throw new GraphQLError('DateTime must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z');
  }
  return new Date(value);
}

/** Gives the SDL's `scalar DateTime` its behaviour: RFC 3339 strings with a zone, both ways. */
export function defineDateTime(scalar: GraphQLScalarType): void {
  scalar.serialize = (value: unknown): string => {
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
    if (typeof value === 'string') return parse(value).toISOString();
    throw new GraphQLError('DateTime cannot represent this value');
  };
  scalar.parseValue = parse;
  scalar.parseLiteral = (node: ValueNode): Date => {
    if (node.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: [node] });
    return parse(node.value);
  };
}
