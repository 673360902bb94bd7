import {
  getNamedType,
  getOperationAST,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
  type ExecutionArgs,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { NumberText } from '../../../domain/shared/Decimal.js';
import { jsonNumberTexts, type JsonPath } from '../codecs/jsonNumbers.js';

/** The JSON text a request's variables were parsed from, and where the variables object stands in it. */
export interface VariablesText {
  readonly json: string;
  readonly at: JsonPath;
}

/** The scalar whose numbers are read by their text. */
const DECIMAL = 'Decimal';

/** Per schema: the input object types through which a value can hold a Decimal. */
const reachingBySchema = new WeakMap<GraphQLSchema, ReadonlySet<GraphQLInputObjectType>>();

function decimalReaching(schema: GraphQLSchema): ReadonlySet<GraphQLInputObjectType> {
  let reaching = reachingBySchema.get(schema);
  if (reaching) return reaching;
  const inputs = Object.values(schema.getTypeMap()).filter(isInputObjectType);
  const found = new Set<GraphQLInputObjectType>();
  const holds = (type: GraphQLInputType): boolean => {
    const named = getNamedType(type);
    return (isScalarType(named) && named.name === DECIMAL) || (isInputObjectType(named) && found.has(named));
  };
  // Grown to a fixed point, so that input types referring to each other are settled whatever their order.
  for (let grew = true; grew;) {
    grew = false;
    for (const input of inputs) {
      if (!found.has(input) && Object.values(input.getFields()).some((field) => holds(field.type))) {
        found.add(input);
        grew = true;
      }
    }
  }
  reaching = found;
  reachingBySchema.set(schema, reaching);
  return reaching;
}

/**
 * `args` with each JSON number its variables hold at a position the operation types `Decimal`
 * replaced by that number's source text in the request (`NumberText`), so that the field's rule
 * reads every digit written (`0.10000000000000001` is refused, not read as the double 0.1);
 * `args` itself when there is none. Positions typed `Float`, `Int` or anything else keep their
 * numbers. `text` is asked for only once such a number is found, and read in one pass.
 */
export function withDecimalTexts(args: ExecutionArgs, text: () => VariablesText | undefined): ExecutionArgs {
  const variables = args.variableValues;
  const definitions = variables ? getOperationAST(args.document, args.operationName)?.variableDefinitions : undefined;
  if (!variables || !definitions || definitions.length === 0) return args;
  const reaching = decimalReaching(args.schema);
  const canHold = (type: GraphQLInputType): boolean => {
    const named = getNamedType(type);
    return isInputObjectType(named) ? reaching.has(named) : named.name === DECIMAL;
  };
  const found: (string | number)[][] = [];
  const collect = (type: GraphQLInputType, value: unknown, path: (string | number)[]): void => {
    // A value whose type holds no Decimal (a list of IDs, a Float) is not walked.
    if (!canHold(type)) return;
    if (isNonNullType(type)) return collect(type.ofType, value, path);
    if (isListType(type)) {
      if (!Array.isArray(value)) return collect(type.ofType, value, path);
      value.forEach((item, index) => collect(type.ofType, item, [...path, index]));
      return;
    }
    if (isInputObjectType(type)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      for (const field of Object.values(type.getFields()))
        if (Object.hasOwn(value, field.name))
          collect(field.type, (value as Record<string, unknown>)[field.name], [...path, field.name]);
      return;
    }
    if (isScalarType(type) && type.name === DECIMAL && typeof value === 'number') found.push(path);
  };
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    const type = typeFromAST(args.schema, definition.type);
    if (type && isInputType(type) && Object.hasOwn(variables, name)) collect(type, variables[name], [name]);
  }
  if (found.length === 0) return args;
  const source = text();
  if (!source) return args;
  const texts = jsonNumberTexts(
    source.json,
    found.map((path) => [...source.at, ...path]),
  );
  // A copy, written in place: the request's parsed body stays as it was.
  const read = structuredClone(variables) as Record<string, unknown>;
  found.forEach((path, index) => {
    const number = texts[index];
    if (number === undefined) return;
    let container: Record<string | number, unknown> = read;
    for (const step of path.slice(0, -1)) container = container[step] as Record<string | number, unknown>;
    container[path[path.length - 1]!] = new NumberText(number);
  });
  return { ...args, variableValues: read };
}
