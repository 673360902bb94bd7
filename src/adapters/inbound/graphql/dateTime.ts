import { GraphQLError, Kind, type GraphQLScalarType, type ValueNode } from 'graphql';
import { isRfc3339 } from '../codecs/fields.js';

function parse(value: unknown): Date {
  if (typeof value !== 'string' || !isRfc3339(value)) {
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
