import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { AccessClaims } from '../../../application/ports/TokenIssuer.js';
import type { Product } from '../../../domain/product/Product.js';
import type { ProductSortField } from '../../../domain/product/ProductRepository.js';
import { ForbiddenError, UnauthorizedError, ValidationError, type FieldViolation } from '../../../domain/shared/DomainError.js';
import { totalPages, type Page } from '../../../domain/shared/Page.js';
import { decodeFields, optional } from '../codecs/fields.js';
import { PageField, PerPageField, SearchField, sortField } from '../codecs/listCodecs.js';
import { CreateProductBody, UpdateProductBody } from '../codecs/productCodecs.js';
import { productId, type ProductUseCases } from '../productUseCases.js';
import { apiErrors, toGraphQLError } from './errors.js';

/** The GraphQL API drives the same product use cases as REST. */
export type GraphQLUseCases = ProductUseCases;

/** Per-request context: the bearer token (if any) and the request's logger. */
export interface GraphQLContext {
  bearer: string | undefined;
  /** Why the Authorization header could not be used, when it could not. */
  bearerProblem: string | undefined;
  log: Logger;
  /** Memoized authentication, so a request with many fields authenticates once. */
  principal?: Promise<AccessClaims>;
  /** Told who the caller is once authenticated (the request log line carries the user id). */
  onAuthenticated?: (claims: AccessClaims) => void;
}

type Args = Record<string, unknown>;
type Resolver = (args: Args, context: GraphQLContext) => Promise<unknown>;

const presentProduct = (p: Product) => ({ id: p.id, name: p.name, price: p.price, createdAt: p.createdAt, updatedAt: p.updatedAt });

const SORT_BY_FIELD: Record<string, ProductSortField> = { name: 'name', price: 'price', createdAt: 'created_at', updatedAt: 'updated_at' };
const SortByField = sortField(Object.keys(SORT_BY_FIELD));

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

/** `products` arguments → a list query; bad ones → a VALIDATION_ERROR GraphQL error listing all. */
function listQuery(args: Args) {
  const violations: FieldViolation[] = [];
  const pagination = decodeArgument(
    () => decodeFields({ limit: optional(PerPageField), page: optional(PageField) }, args.pagination ?? {}, 'pagination'),
    'pagination.',
    violations,
  );
  const sort = decodeArgument(() => decodeFields({ sortByField: optional(SortByField) }, args.sort ?? {}, 'sort'), 'sort.', violations);
  const search = decodeArgument(() => decodeFields({ search: optional(SearchField) }, args), '', violations);
  if (violations.length > 0) throw new ValidationError(violations);
  const orientation = (args.sort as { sortOrientation?: string } | null | undefined)?.sortOrientation;
  return {
    page: pagination?.page ?? 1,
    perPage: pagination?.limit ?? 20,
    sort: SORT_BY_FIELD[sort?.sortByField ?? 'createdAt'] ?? 'created_at',
    order: orientation === 'ASC' ? ('asc' as const) : ('desc' as const),
    q: search?.search,
  };
}

function presentList(page: Page<Product>) {
  return {
    data: page.items.map(presentProduct),
    pagination: { totalRecords: page.total, recordsPerPage: page.perPage, totalPages: totalPages(page), currentPage: page.page },
  };
}

/** A mutation's field-level validation failure, answered in the response object (status 422). */
function unprocessable(error: ValidationError) {
  return { status: 422, message: 'validation failed', errors: apiErrors(error), data: null };
}

/**
 * Attaches resolvers to the schema's root fields. Each one authenticates and authorizes as the
 * REST call it mirrors (health fields are public), then calls a use case and nothing else.
 */
export function attachResolvers(schema: GraphQLSchema, useCases: GraphQLUseCases): void {
  const authorize = async (context: GraphQLContext, path: string, method: string): Promise<void> => {
    context.principal ??= (async () => {
      if (context.bearer === undefined) throw new UnauthorizedError(context.bearerProblem ?? 'missing bearer token');
      const claims = await useCases.authenticate.execute({ accessToken: context.bearer });
      context.onAuthenticated?.(claims);
      return claims;
    })();
    const claims = await context.principal;
    if (!(await useCases.policy.enforce(claims.role, path, method))) throw new ForbiddenError();
  };
  const health = async () => ({ status: 200, message: 'ok', errors: null });

  const query: Record<string, Resolver> = {
    queryHealth: health,
    product: async (args, context) => {
      await authorize(context, '/api/v1/products/{id}', 'GET');
      return presentProduct(await useCases.get.execute({ id: productId(args.id) }));
    },
    products: async (args, context) => {
      const searching = args.search !== undefined && args.search !== null;
      await authorize(context, searching ? '/api/v1/products/search' : '/api/v1/products', 'GET');
      const { q, ...page } = listQuery(args);
      return presentList(q === undefined ? await useCases.list.execute(page) : await useCases.search.execute({ ...page, q }));
    },
  };

  const mutation: Record<string, Resolver> = {
    mutationHealth: health,
    createProduct: async (args, context) => {
      await authorize(context, '/api/v1/products', 'POST');
      let input;
      try {
        input = decodeFields(CreateProductBody, args.input, 'input');
      } catch (error) {
        if (error instanceof ValidationError) return unprocessable(error);
        throw error;
      }
      return { status: 201, message: 'created', errors: null, data: presentProduct(await useCases.create.execute(input)) };
    },
    updateProduct: async (args, context) => {
      await authorize(context, '/api/v1/products/{id}', 'PUT');
      const id = productId(args.id);
      let changes;
      try {
        changes = decodeFields(UpdateProductBody, withoutNulls(args.input), 'input');
      } catch (error) {
        if (error instanceof ValidationError) return unprocessable(error);
        throw error;
      }
      return { status: 200, message: 'updated', errors: null, data: presentProduct(await useCases.update.execute({ id, changes })) };
    },
    deleteProduct: async (args, context) => {
      await authorize(context, '/api/v1/products/{id}', 'DELETE');
      await useCases.remove.execute({ id: productId(args.id) });
      return { status: 200, message: 'deleted', errors: null };
    },
  };

  bind(schema, 'Query', query);
  bind(schema, 'Mutation', mutation);
}

/**
 * In `UpdateProductInput` an explicit `null` means the same as leaving the field out would be
 * ambiguous; GraphQL clients send `null` for "not given" often, so it is treated as absent.
 */
function withoutNulls(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input;
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null));
}

function bind(schema: GraphQLSchema, typeName: 'Query' | 'Mutation', resolvers: Record<string, Resolver>): void {
  const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
  if (!type) throw new Error(`schema has no ${typeName} type`);
  const fields = type.getFields();
  for (const [name, resolve] of Object.entries(resolvers)) {
    const field = fields[name];
    if (!field) throw new Error(`schema has no ${typeName}.${name}`);
    const wrapped: GraphQLFieldResolver<unknown, GraphQLContext> = async (_source, args, context) => {
      try {
        return await resolve(args, context);
      } catch (error) {
        const mapped = toGraphQLError(error);
        if (mapped.internal) context.log.error({ err: error, field: `${typeName}.${name}` }, 'unhandled error in GraphQL resolver');
        throw mapped.error;
      }
    };
    field.resolve = wrapped;
  }
}

