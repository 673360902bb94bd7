import { GraphQLError } from 'graphql';
import { DomainError, ValidationError } from '../../../domain/shared/DomainError.js';

/** `{fieldName, message}` entries, the GraphQL side's name for validation failures. */
export const apiErrors = (error: ValidationError): { fieldName: string; message: string }[] =>
  error.fields.map((f) => ({ fieldName: f.field, message: f.message }));

/**
 * The GraphQL error table: a DomainError becomes a GraphQL error whose `extensions` carry the
 * REST `code` (and `detail`, or `fields` for validation); anything else becomes
 * `INTERNAL_ERROR` with a fixed message — its own message never leaves the process.
 */
export function toGraphQLError(error: unknown): { error: GraphQLError; internal: boolean } {
  if (error instanceof GraphQLError) return { error, internal: false };
  if (error instanceof ValidationError) {
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
