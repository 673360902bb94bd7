import { GraphQLError, Kind, type GraphQLScalarType, type ValueNode } from 'graphql';
import { NumberText } from '../../../domain/shared/Decimal.js';

/** A decimal as written: an optional `-`, digits, and a fraction after a point. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

function parse(value: unknown): string | NumberText {
  // Text, or a JSON number by its text (the route hands it on as the request wrote it): the field's rule reads it.
  if (typeof value === 'string' || value instanceof NumberText) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return new NumberText(String(value));
  throw new GraphQLError('Decimal must be a decimal number as a string, e.g. "12.50"');
}

/**
 * Gives `scalar Decimal` (an exact decimal field's type) its behaviour: answered as the canonical
 * text (`"12.50"`); taken as a string, or as a number by its own text (a literal's as written in
 * the query, a variable's as written in the request), never through a double. No digit is placed
 * here: the field's rule, REST's too, reads the text and refuses what breaks it (a third fraction
 * digit, an exponent beyond the precision), so a bad value is that field's failure.
 */
export function defineDecimal(scalar: GraphQLScalarType): void {
  scalar.serialize = (value: unknown): string => {
    if (typeof value === 'string' && DECIMAL.test(value)) return value;
    throw new GraphQLError('Decimal cannot represent this value');
  };
  scalar.parseValue = parse;
  scalar.parseLiteral = (node: ValueNode): string | NumberText => {
    if (node.kind === Kind.STRING) return node.value;
    if (node.kind === Kind.INT || node.kind === Kind.FLOAT) return new NumberText(node.value);
    throw new GraphQLError('Decimal must be a string or a number', { nodes: [node] });
  };
}
