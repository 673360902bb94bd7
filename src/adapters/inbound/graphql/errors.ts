import { GraphQLError } from 'graphql';
import { DomainError, NotUniqueError, ValidationError } from '../../../domain/shared/DomainError.js';

/** A field's GraphQL name: `created_at` → `createdAt`; a camel-case name stays as it is. */
export const graphqlName = (field: string): string =>
  field.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/**
 * `{fieldName, message}` entries, the GraphQL side's name for validation failures (and values that
 * must be unique), each field by its GraphQL name: the domain and the stores name fields by their
 * JSON names (`customer_id`).
 */
export const apiErrors = (error: ValidationError | NotUniqueError): { fieldName: string; message: string }[] =>
  error.fields.map((f) => ({ fieldName: graphqlName(f.field), message: f.message }));

/**
 * The GraphQL error table: a DomainError becomes a GraphQL error whose `extensions` carry the
 * REST `code` (and `detail`, or `fields` for validation); anything else becomes
 * `INTERNAL_ERROR` with a fixed message — its own message never leaves the process.
 */
export function toGraphQLError(error: unknown): { error: GraphQLError; internal: boolean } {
  if (error instanceof GraphQLError) return { error, internal: false };
  if (error instanceof ValidationError || error instanceof NotUniqueError) {
    return {
      error: new GraphQLError(error.message, { extensions: { code: error.code, fields: apiErrors(error) } }),
      internal: false,
    };
  }
  if (error instanceof DomainError) {
    const extensions = error.detail === undefined ? { code: error.code } : { code: error.code, detail: error.detail };
    return { error: new GraphQLError(error.message, { extensions }), internal: false };
  }
  return {
    error: new GraphQLError('internal server error', { extensions: { code: 'INTERNAL_ERROR' } }),
    internal: true,
  };
}
