import { GraphQLError, Kind, type GraphQLScalarType, type ValueNode } from 'graphql';

/** RFC 3339 date-time with a zone (`Z` or `±hh:mm`). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function parse(value: unknown): Date {
  if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
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
