import { readFileSync } from 'node:fs';
import {
  buildSchema,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLScalarType,
  type GraphQLSchema,
} from 'graphql';
import { defineDateTime } from './dateTime.js';
import { defineDate } from './date.js';
import { defineDecimal } from './decimal.js';
import { toGraphQLError } from './errors.js';
import type {
  FieldResolver,
  FragmentScalar,
  FragmentType,
  GraphQLContext,
  GraphQLFragment,
  Resolver,
} from './resolverKit.js';

/**
 * The shared part of the published SDL (README: GraphQL; scalars, the T* DTOs, the health root fields), kept
 * as a `.graphql` file beside this module (copied into the build). Resources extend it.
 */
export const sharedTypeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

/** The behaviour of each scalar a fragment may ask for. */
const SCALARS: Record<FragmentScalar, (scalar: GraphQLScalarType) => void> = {
  Decimal: defineDecimal,
  Date: defineDate,
};

/** The SDL of each object type a fragment may ask for. */
const TYPES: Record<FragmentType, string> = {
  // A stored file (a resource's `file` field): its signed link, size in bytes (a whole number), type and SHA-256 (hex).
  File: 'type File {\n  url: String!\n  size: Float!\n  contentType: String!\n  sha256: String!\n}',
};

const health = async () => ({ status: 200, message: 'ok', errors: null });

/** The public health fields; every other root field comes from a resource's fragment. */
const SHARED: GraphQLFragment = {
  typeDefs: sharedTypeDefs,
  resolvers: { Query: { queryHealth: health }, Mutation: { mutationHealth: health } },
};

/**
 * The executable schema: the shared SDL and every fragment's (one document, so `extend type`
 * works), the DateTime scalar's behaviour, and every fragment's resolvers. Fails at start when a
 * resolver names a root field the SDL lacks, or two fragments resolve the same one.
 */
export function createSchema(fragments: readonly GraphQLFragment[]): GraphQLSchema {
  const all = [SHARED, ...fragments];
  const scalars = [...new Set(fragments.flatMap((fragment) => fragment.scalars ?? []))].sort();
  const types = [...new Set(fragments.flatMap((fragment) => fragment.sharedTypes ?? []))].sort();
  const schema = buildSchema(
    [
      ...all.map((fragment) => fragment.typeDefs),
      ...scalars.map((name) => `scalar ${name}`),
      ...types.map((name) => TYPES[name]),
    ].join('\n'),
  );
  defineDateTime(schema.getType('DateTime') as GraphQLScalarType);
  for (const name of scalars) SCALARS[name](schema.getType(name) as GraphQLScalarType);
  const bound = new Set<string>();
  for (const { resolvers, types } of all) {
    bind(schema, 'Query', resolvers.Query ?? {}, bound);
    bind(schema, 'Mutation', resolvers.Mutation ?? {}, bound);
    for (const [typeName, fields] of Object.entries(types ?? {})) bindFields(schema, typeName, fields, bound);
  }
  return schema;
}

/** Runs `resolve`, answering a domain error as the GraphQL error it maps to (and logging an unexpected one). */
async function mapped(field: string, context: GraphQLContext, resolve: () => Promise<unknown>): Promise<unknown> {
  try {
    return await resolve();
  } catch (error) {
    const result = toGraphQLError(error);
    if (result.internal) context.log.error({ err: error, field }, 'unhandled error in GraphQL resolver');
    throw result.error;
  }
}

function bindFields(
  schema: GraphQLSchema,
  typeName: string,
  resolvers: Readonly<Record<string, FieldResolver>>,
  bound: Set<string>,
): void {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`schema has no object type ${typeName}`);
  const fields = type.getFields();
  for (const [name, resolve] of Object.entries(resolvers)) {
    const field = fields[name];
    if (!field) throw new Error(`schema has no ${typeName}.${name}`);
    if (bound.has(`${typeName}.${name}`)) throw new Error(`${typeName}.${name} is resolved twice`);
    bound.add(`${typeName}.${name}`);
    const wrapped: GraphQLFieldResolver<Record<string, unknown>, GraphQLContext> = (source, args, context) =>
      mapped(`${typeName}.${name}`, context, () => resolve(source, args, context));
    field.resolve = wrapped as GraphQLFieldResolver<unknown, unknown>;
  }
}

/** Root fields are fields of the Query and Mutation types whose resolvers need no source. */
function bind(
  schema: GraphQLSchema,
  typeName: 'Query' | 'Mutation',
  resolvers: Record<string, Resolver>,
  bound: Set<string>,
): void {
  const fields = Object.fromEntries(
    Object.entries(resolvers).map(([name, resolve]): [string, FieldResolver] => [
      name,
      (_source, args, context) => resolve(args, context),
    ]),
  );
  bindFields(schema, typeName, fields, bound);
}
