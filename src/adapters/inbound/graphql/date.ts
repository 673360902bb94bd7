import { GraphQLError, Kind, type GraphQLScalarType, type ValueNode } from 'graphql';
import { isCalendarDate } from '../../../domain/shared/fieldRules.js';

function parse(value: unknown): string {
  // Any text: the field's rule reads it (REST's too), so a date that is no real day is that field's failure.
  if (typeof value === 'string') return value;
  throw new GraphQLError('Date must be a calendar date as a string, e.g. "2026-01-31"');
}

/**
 * Gives `scalar Date` (a `date` field's type) its behaviour: a calendar date `YYYY-MM-DD`, answered
 * as the text stored and taken as text, checked by the field's rule (a VALIDATION_ERROR naming it).
 */
export function defineDate(scalar: GraphQLScalarType): void {
  scalar.serialize = (value: unknown): string => {
    if (typeof value === 'string' && isCalendarDate(value)) return value;
    throw new GraphQLError('Date cannot represent this value');
  };
  scalar.parseValue = parse;
  scalar.parseLiteral = (node: ValueNode): string => {
    if (node.kind !== Kind.STRING) throw new GraphQLError('Date must be a string', { nodes: [node] });
    return node.value;
  };
}
