import type { Logger } from 'pino';
import type { Authenticate } from '../../../application/auth/Authenticate.js';
import type { AccessPolicy, AccessScope } from '../../../application/ports/AccessPolicy.js';
import type { AccessClaims } from '../../../application/ports/TokenIssuer.js';
import {
  ForbiddenError,
  NotUniqueError,
  UnauthorizedError,
  ValidationError,
  type FieldViolation,
} from '../../../domain/shared/DomainError.js';
import { totalPages, type Page, type PageRequest } from '../../../domain/shared/Page.js';
import { isLeft } from 'fp-ts/lib/Either.js';
import { decodeFields, optional, type Decoded, type Shape } from '../codecs/fields.js';
import {
  LIST_DEFAULTS,
  listFilters,
  PageField,
  PerPageField,
  SearchField,
  sortField,
  type DefaultSort,
  type ListFilters,
} from '../codecs/listCodecs.js';
import { apiErrors, graphqlName } from './errors.js';
import { paced, type Pace } from './pacing.js';

/** Who the caller is and what the policy lets them do: the same checks REST makes. */
export interface GraphQLAccess {
  authenticate: Authenticate;
  policy: AccessPolicy;
}

/** Per-request context: the bearer token (if any) and the request's logger. */
export interface GraphQLContext {
  bearer: string | undefined;
  /** Why the Authorization header could not be used, when it could not. */
  bearerProblem: string | undefined;
  log: Logger;
  access: GraphQLAccess;
  /** Memoized authentication, so a request with many fields authenticates once. */
  principal?: Promise<AccessClaims>;
  /** Told who the caller is once authenticated (the request log line carries the user id). */
  onAuthenticated?: (claims: AccessClaims) => void;
  /** The request's pending batched reads (relation fields), by name (see batches.ts). */
  batches?: Map<string, unknown>;
  /** How the request's list items are spread over turns of the event loop (see pacing.ts). */
  pace?: Pace;
}

export type Args = Record<string, unknown>;
export type Resolver = (args: Args, context: GraphQLContext) => Promise<unknown>;
/** The resolver of a field of an object type (`Invoice.customer`): given the object it is a field of. */
export type FieldResolver = (source: Record<string, unknown>, args: Args, context: GraphQLContext) => Promise<unknown>;

/** What one resource adds to the GraphQL API: its SDL (types, `extend type Query/Mutation`) and the resolvers of its root fields. */
export interface GraphQLFragment {
  typeDefs: string;
  /** Scalars beyond the shared SDL's that the fragment's types use (`Decimal`, `Date`): declared once for all fragments. */
  scalars?: readonly FragmentScalar[];
  /** Object types beyond the shared SDL's that the fragment's types use (`File`): declared once for all fragments. */
  sharedTypes?: readonly FragmentType[];
  resolvers: { Query?: Record<string, Resolver>; Mutation?: Record<string, Resolver> };
  /** Resolvers of object types' fields (relation fields: `Invoice.customer`, `Customer.invoices`), by type. */
  types?: Readonly<Record<string, Readonly<Record<string, FieldResolver>>>>;
}

/** The scalars a fragment may need that the shared SDL does not declare (each declared once, when used). */
export type FragmentScalar = 'Decimal' | 'Date';

/** The object types a fragment may need that the shared SDL does not declare (each declared once, when used). */
export type FragmentType = 'File';

/**
 * Authenticates the request (once, however many fields ask) and checks the policy for the REST
 * call the field mirrors: `path` in the policy's form (`/api/v1/products/{id}`), `method` its verb.
 * Answers the caller and what their rules reach there (`scope`: every row, or only their own).
 */
export async function guard(
  context: GraphQLContext,
  path: string,
  method: string,
): Promise<AccessClaims & { readonly scope: AccessScope }> {
  context.principal ??= (async () => {
    if (context.bearer === undefined) throw new UnauthorizedError(context.bearerProblem ?? 'missing bearer token');
    const claims = await context.access.authenticate.execute({ accessToken: context.bearer });
    context.onAuthenticated?.(claims);
    return claims;
  })();
  const claims = await context.principal;
  const scope = await context.access.policy.scopeOf(claims.role, path, method);
  if (scope === undefined) throw new ForbiddenError();
  return { ...claims, scope };
}

/** Decodes a nested input with the shared codecs, naming failures `<argument>.<field>`. */
function decodeArgument<T>(decode: () => T, prefix: string, violations: FieldViolation[]): T | undefined {
  try {
    return decode();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    violations.push(...error.fields.map((f) => ({ field: `${prefix}${f.field}`, message: f.message })));
    return undefined;
  }
}

/** Per resource (its sort-field list, a module constant): GraphQL sort name → field, and the codec of those names. */
const sortLookups = new WeakMap<
  readonly string[],
  { byName: ReadonlyMap<string, string>; codec: ReturnType<typeof sortField> }
>();

function sortLookupOf(sortFields: readonly string[]): {
  byName: ReadonlyMap<string, string>;
  codec: ReturnType<typeof sortField>;
} {
  let lookup = sortLookups.get(sortFields);
  if (!lookup) {
    const byName = new Map(sortFields.map((field) => [graphqlName(field), field]));
    lookup = { byName, codec: sortField([...byName.keys()]) };
    sortLookups.set(sortFields, lookup);
  }
  return lookup;
}

/**
 * A list field's `pagination`, `sort` and `search` arguments, and its `filters` (optional arguments
 * such as `customerId`) → a list query with the shared defaults (LIST_DEFAULTS); `sortByField` takes
 * the GraphQL names of `sortFields`. Bad arguments → one VALIDATION_ERROR naming every one.
 */
export function listArguments<F extends string, S extends Shape = Record<never, never>>(
  args: Args,
  sortFields: readonly (F | DefaultSort)[],
  filters?: S,
): PageRequest<F | DefaultSort> & { q?: string } & ListFilters {
  const { byName, codec: SortByField } = sortLookupOf(sortFields);
  const violations: FieldViolation[] = [];
  const pagination = decodeArgument(
    () =>
      decodeFields({ limit: optional(PerPageField), page: optional(PageField) }, args.pagination ?? {}, 'pagination'),
    'pagination.',
    violations,
  );
  const sort = decodeArgument(
    () => decodeFields({ sortByField: optional(SortByField) }, args.sort ?? {}, 'sort'),
    'sort.',
    violations,
  );
  const search = decodeArgument(() => decodeFields({ search: optional(SearchField) }, args), '', violations);
  const filtered = decodeArgument(
    () => decodeFields(filters ?? ({} as S), withoutNulls(args, filters ?? {})),
    '',
    violations,
  );
  if (violations.length > 0) throw new ValidationError(violations);
  const orientation = (args.sort as { sortOrientation?: string } | null | undefined)?.sortOrientation;
  return {
    ...listFilters(filtered ?? {}),
    page: pagination?.page ?? LIST_DEFAULTS.page,
    perPage: pagination?.limit ?? LIST_DEFAULTS.perPage,
    sort: ((sort?.sortByField !== undefined && byName.get(sort.sortByField)) || LIST_DEFAULTS.sort) as F | DefaultSort,
    order:
      orientation === undefined || orientation === null ? LIST_DEFAULTS.order : orientation === 'ASC' ? 'asc' : 'desc',
    ...(search?.search !== undefined ? { q: search.search } : {}),
  };
}

/**
 * A page as the `<Resource>List` types show it; with the request's `context`, its items are paced
 * (pacing.ts), so that a query of many large lists does not hold the event loop for its whole answer.
 */
export function presentPage<T, P>(page: Page<T>, present: (item: T) => P, context?: { pace?: Pace }) {
  const items = page.items.map(present);
  return {
    data: context ? paced(context, items) : items,
    pagination: {
      totalRecords: page.total,
      recordsPerPage: page.perPage,
      totalPages: totalPages(page),
      currentPage: page.page,
    },
  };
}

/** A mutation's field-level validation failure, answered in the response object (status 422). */
export interface Unprocessable {
  status: 422;
  message: 'validation failed';
  errors: { fieldName: string; message: string }[];
  data: null;
}

const unprocessable = (error: ValidationError): Unprocessable => ({
  status: 422,
  message: 'validation failed',
  errors: apiErrors(error),
  data: null,
});

/**
 * A mutation's `input` decoded with the shared codecs, or — when a field fails — the 422 response
 * object the mutation answers with (README: GraphQL) in `rejected`.
 */
export function decodeMutationInput<S extends Shape>(
  shape: S,
  input: unknown,
): { value: Decoded<S> } | { rejected: Unprocessable } {
  try {
    return { value: decodeFields(shape, input, 'input') };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { rejected: unprocessable(error) };
  }
}

/** A mutation's write refused because a value that must be unique is another row's (status 409). */
export interface NotUnique {
  status: 409;
  message: 'not unique';
  errors: { fieldName: string; message: string }[];
  data: null;
}

/**
 * A mutation's write, or — when it finds a field failing that only it can check — its answer in
 * the response object, in `rejected`: a reference naming no row (the store's foreign key), the same
 * 422 as a failing input field; a value another row holds where it must be unique, a 409 naming
 * the field. Any other failure is thrown, to be answered as a GraphQL error.
 */
export async function mutationWrite<T>(
  write: () => Promise<T>,
): Promise<{ value: T } | { rejected: Unprocessable | NotUnique }> {
  try {
    return { value: await write() };
  } catch (error) {
    if (error instanceof NotUniqueError)
      return { rejected: { status: 409, message: 'not unique', errors: apiErrors(error), data: null } };
    if (!(error instanceof ValidationError)) throw error;
    return { rejected: unprocessable(error) };
  }
}

/**
 * An explicit `null` for a field that cannot be null (a required field in an update input, an
 * unused filter) is treated as absent: GraphQL clients often send `null` for "not given". A field
 * whose codec takes `null` (an optional field) keeps it: `null` clears it.
 */
export function withoutNulls(input: unknown, shape: Shape): unknown {
  if (typeof input !== 'object' || input === null) return input;
  const takesNull = (key: string): boolean => {
    const spec = shape[key];
    return spec !== undefined && !isLeft(spec.codec.decode(null));
  };
  return Object.fromEntries(Object.entries(input).filter(([key, value]) => value !== null || takesNull(key)));
}

/**
 * GraphQL spells an enum's values in upper case (`FREE`); the domain lists them in lower case
 * (`free`). The input's `fields` (enum fields) are read back in the domain's spelling.
 */
export function enumsFromGraphQL(input: unknown, fields: readonly string[]): unknown {
  if (typeof input !== 'object' || input === null) return input;
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      key,
      fields.includes(key) && typeof value === 'string' ? value.toLowerCase() : value,
    ]),
  );
}
