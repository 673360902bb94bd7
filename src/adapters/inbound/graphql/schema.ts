import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLScalarType, type GraphQLSchema } from 'graphql';
import { defineDateTime } from './dateTime.js';
import { attachResolvers, type GraphQLUseCases } from './resolvers.js';

/** The SDL of CONTRACT §10, kept as a `.graphql` file beside this module (copied into the build). */
export const typeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

/** The executable schema: SDL, the DateTime scalar's behaviour, and resolvers over the use cases. */
export function createSchema(useCases: GraphQLUseCases): GraphQLSchema {
  const schema = buildSchema(typeDefs);
  defineDateTime(schema.getType('DateTime') as GraphQLScalarType);
  attachResolvers(schema, useCases);
  return schema;
}
