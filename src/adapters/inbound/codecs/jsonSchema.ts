/**
 * JSON Schema (2020-12, the dialect of OpenAPI 3.1) as the inbound adapters write it: the codecs
 * state their rules in it, the presenters their shapes, and the API document is assembled from both.
 */
export interface JsonSchema {
  readonly $ref?: string;
  /** A named schema: the API document puts it under `components/schemas/<title>` and refers to it. */
  readonly title?: string;
  readonly type?: JsonType | readonly JsonType[];
  readonly description?: string;
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly default?: unknown;
  readonly readOnly?: boolean;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly oneOf?: readonly JsonSchema[];
  readonly examples?: readonly unknown[];
}

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/** The same schema, `null` allowed too (an optional field's value). */
export function nullableSchema(schema: JsonSchema): JsonSchema {
  const types =
    schema.type === undefined
      ? []
      : Array.isArray(schema.type)
        ? (schema.type as readonly JsonType[])
        : [schema.type as JsonType];
  if (schema.$ref !== undefined) return { oneOf: [{ $ref: schema.$ref }, { type: 'null' }] };
  return {
    ...schema,
    type: types.includes('null') ? types : [...types, 'null'],
    ...(schema.enum !== undefined && !schema.enum.includes(null) ? { enum: [...schema.enum, null] } : {}),
  };
}

/** An object every listed property of which is present, and nothing else (what the presenters write). */
export function closedObject(properties: Readonly<Record<string, JsonSchema>>, description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

export const arrayOf = (items: JsonSchema, description?: string): JsonSchema => ({
  type: 'array',
  items,
  ...(description === undefined ? {} : { description }),
});

/** Common wire values, each stated once. */
export const WIRE = {
  uuid: { type: 'string', format: 'uuid', description: 'A UUID' },
  dateTime: { type: 'string', format: 'date-time', description: 'An instant in RFC 3339, in UTC (`Z`)' },
  text: (description: string): JsonSchema => ({ type: 'string', description }),
  integer: (description: string, minimum?: number): JsonSchema => ({
    type: 'integer',
    description,
    ...(minimum === undefined ? {} : { minimum }),
  }),
} as const satisfies Record<string, JsonSchema | ((...args: never[]) => JsonSchema)>;

/** A fixed, valid UUID for examples. */
const EXAMPLE_UUID = '7d0c6b1e-3f4a-4c2b-9e8d-1a2b3c4d5e6f';
const EXAMPLE_INSTANT = '2026-01-15T09:30:00.000Z';

/** Example text that keeps a length rule: a readable word, padded or cut to the bounds. */
function exampleText(schema: JsonSchema): string {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 40;
  let text = 'example';
  if (text.length < min) text = text.padEnd(min, 'x');
  return text.slice(0, Math.max(max, min));
}

/** A number inside a range (its lower end, or just above an exclusive one). */
function exampleNumber(schema: JsonSchema, integer: boolean): number {
  const low =
    schema.minimum ??
    (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 0.5) : undefined);
  const high =
    schema.maximum ??
    (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 0.5) : undefined);
  const preferred = integer ? 10 : 19.99;
  if (low !== undefined && preferred < low) return low;
  if (high !== undefined && preferred > high) return high;
  return preferred;
}

/**
 * A value that keeps `schema`, for the document's examples: its own `examples[0]` when it states
 * one, else one made from its type, format and bounds. `resolve` reads a `$ref`.
 */
export function exampleOf(schema: JsonSchema, resolve: (ref: string) => JsonSchema = () => ({})): unknown {
  if (schema.examples !== undefined && schema.examples.length > 0) return schema.examples[0];
  if (schema.$ref !== undefined) return exampleOf(resolve(schema.$ref), resolve);
  if (schema.const !== undefined) return schema.const;
  if (schema.oneOf !== undefined && schema.oneOf.length > 0) return exampleOf(schema.oneOf[0]!, resolve);
  if (schema.enum !== undefined && schema.enum.length > 0) return schema.enum[0];
  const types = Array.isArray(schema.type)
    ? (schema.type as readonly JsonType[])
    : schema.type === undefined
      ? []
      : [schema.type as JsonType];
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  switch (type) {
    case 'string':
      if (schema.format === 'uuid') return EXAMPLE_UUID;
      if (schema.format === 'date-time') return EXAMPLE_INSTANT;
      if (schema.format === 'email') return 'ada@example.com';
      return exampleText(schema);
    case 'integer':
      return exampleNumber(schema, true);
    case 'number':
      return exampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'array':
      return schema.items === undefined ? [] : [exampleOf(schema.items, resolve)];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) out[name] = exampleOf(property, resolve);
      return out;
    }
    case 'null':
      return null;
    default:
      return {};
  }
}
