import { GraphQLError, Kind, type GraphQLScalarType, type ValueNode } from 'graphql';
import { withoutExponent } from '../../../domain/shared/Decimal.js';

/** A decimal as written: an optional `-`, digits, and a fraction after a point. */
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

function parse(value: unknown): string {
  // A variable may hold text or a JSON number; the field's rule then checks its digits.
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return withoutExponent(String(value));
  throw new GraphQLError('Decimal must be a decimal number as a string, e.g. "12.50"');
}

/**
 * Gives `scalar Decimal` (an exact decimal field's type) its behaviour: answered as the canonical
 * text (`"12.50"`); taken as a string, or as a number literal whose text is kept exactly as written
 * (`12.5` in a query is "12.5", never a double), then checked by the field's rule like REST's.
 */
export function defineDecimal(scalar: GraphQLScalarType): void {
  scalar.serialize = (value: unknown): string => {
    if (typeof value === 'string' && DECIMAL.test(value)) return value;
    throw new GraphQLError('Decimal cannot represent this value');
  };
  scalar.parseValue = parse;
  scalar.parseLiteral = (node: ValueNode): string => {
    if (node.kind === Kind.STRING || node.kind === Kind.INT) return node.value;
    if (node.kind === Kind.FLOAT) return withoutExponent(node.value);
    throw new GraphQLError('Decimal must be a string or a number', { nodes: [node] });
  };
}
