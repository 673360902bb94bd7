import type Router from '@koa/router';
import {
  execute,
  getOperationAST,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  validate,
  type DocumentNode,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import { createHandler } from 'graphql-http/lib/use/koa';
import type { IncomingMessage } from 'node:http';
import type { Tracer } from '@opentelemetry/api';
import type { Next, ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import { authorizationHeader, bearerToken } from '../http/middleware/authenticate.js';
import type { RequestState } from '../http/state.js';
import { costLimit, costRefusal, type CostRequest, type KnownCosts } from './cost.js';
import { withDecimalTexts, type VariablesText } from './decimalVariables.js';
import { DocumentCache, documentWeight } from './documentCache.js';
import { queryLimits } from './limits.js';
import { PLAYGROUND_ASSETS, playgroundPage } from './playground.js';
import { servePage } from '../http/pageAssets.js';
import type { GraphQLAccess, GraphQLContext, GraphQLFragment } from './resolverKit.js';
import { createSchema } from './schema.js';
import { tracedExecute } from './tracing.js';

export interface GraphQLOptions {
  generalRoute: string;
  playgroundRoute: string;
  playground: boolean;
  introspection: boolean;
  maxDepth: number;
  /** Most lexical tokens a document may have; parsing stops at the first one past it. */
  maxTokens: number;
  /** Most objects an operation may return in the worst case (`queryCost`); costlier ones are refused before execution. */
  maxCost: number;
  /** When tracing is on: a span per operation (graphql-js's own `execute` otherwise). */
  tracer?: Tracer;
  /** Told of every operation requested, once it is answered (the operations metric); absent: nobody. */
  onOperation?: OperationListener;
}

/** One answered GraphQL operation: its name (absent: anonymous), kind and outcome (errors in the answer: `error`). */
export type OperationListener = (name: string | undefined, kind: OperationKind, outcome: 'success' | 'error') => void;
type OperationKind = 'query' | 'mutation' | 'subscription';

/** What one request's operation turned out to be: executed (from its AST) or refused before (from its text). */
interface OperationSeen {
  name: string | undefined;
  kind: OperationKind;
  outcome: 'success' | 'error';
}

/** The kind and name a document's first operation declares, read from its text (for documents refused unparsed). */
const DECLARED = /^(?:\s|,|#[^\n\r]*)*(query|mutation|subscription)\b(?:\s|,|#[^\n\r]*)*([_A-Za-z][_0-9A-Za-z]*)?/;

function refusedOperation(query: unknown, operationName: string | null | undefined): OperationSeen {
  const declared = typeof query === 'string' ? DECLARED.exec(query) : null;
  const kind = (declared?.[1] as OperationKind | undefined) ?? 'query';
  return { name: operationName ?? declared?.[2], kind, outcome: 'error' };
}

/** What the parse cache holds at most by default, in estimated heap bytes (see documentWeight). */
const CACHE_BYTES = 16 * 1024 * 1024;

/**
 * `message` without the " Did you mean …?" sentence graphql-js appends to unknown field, argument,
 * type and enum value errors: with introspection off those suggestions would reveal the schema.
 */
export function withoutSuggestions(message: string): string {
  const at = message.lastIndexOf(' Did you mean ');
  return at >= 0 && message.endsWith('?') ? message.slice(0, at) : message;
}

/**
 * Parses with at most `maxTokens` lexical tokens: past them parsing stops, and the error says so
 * plainly (graphql-js's own reads "Syntax Error: Document contains more that N tokens").
 */
function parseBounded(
  source: Parameters<typeof parse>[0],
  maxTokens: number,
  parseOptions?: ParseOptions,
): DocumentNode {
  try {
    return parse(source, { maxLexicalTokens: maxTokens, ...parseOptions });
  } catch (error) {
    if (!(error instanceof GraphQLError) || !/contains more tha[nt] \d+ tokens/.test(error.message)) throw error;
    const { source: body, positions } = error;
    throw new GraphQLError(`document has more than ${maxTokens} tokens, the limit`, {
      source: body,
      positions,
      extensions: { code: 'QUERY_TOO_COMPLEX' },
    });
  }
}

function suggestionFree(error: GraphQLError): GraphQLError {
  if (!(error instanceof GraphQLError)) return error;
  const message = withoutSuggestions(error.message);
  if (message === error.message) return error;
  const { nodes, source, positions, path, originalError, extensions } = error;
  return new GraphQLError(message, { nodes, source, positions, path, originalError, extensions });
}

/** What the Koa request hands to the GraphQL context (graphql-http sees only the raw request). */
interface RequestSeen {
  authorization: string;
  state: RequestState;
  operation?: OperationSeen;
  /** The JSON text the variables were parsed from: the body's (POST) or the `variables` parameter's (GET). */
  variablesText: () => VariablesText | undefined;
}
const requestState = new WeakMap<IncomingMessage, RequestSeen>();

/** Each request's context → where its variables' text is (for `Decimal` numbers, decimalVariables.ts). */
const variableTexts = new WeakMap<object, () => VariablesText | undefined>();

function variablesTextOf(ctx: ParameterizedContext<RequestState>): VariablesText | undefined {
  if (ctx.method === 'POST')
    return ctx.request.rawBody === undefined ? undefined : { json: ctx.request.rawBody, at: ['variables'] };
  const json = new URLSearchParams(ctx.querystring).get('variables');
  return json === null ? undefined : { json, at: [] };
}

/**
 * The GraphQL API at the general route (GraphQL-over-HTTP: POST JSON and GET) and, when enabled,
 * the offline GraphiQL explorer at the playground route. Authentication and RBAC happen per
 * resolver, never as HTTP middleware, so a bad token never makes an HTTP 401. `cache` keeps the
 * documents that parsed and validated (a fresh one of 16 MiB unless given). The schema is the
 * shared SDL and every resource's `fragments`; `access` authenticates and authorizes their fields.
 */
export function graphqlRoutes(
  fragments: readonly GraphQLFragment[],
  access: GraphQLAccess,
  options: GraphQLOptions,
  cache = new DocumentCache(CACHE_BYTES),
): (router: Router<RequestState>) => void {
  const schema = createSchema(fragments);
  const rules = [
    queryLimits({ maxDepth: options.maxDepth, maxFields: 500, maxAliases: 30 }),
    ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
  // Clients send the same few documents over and over: parse and validate each once. Only documents
  // that parsed and validated are kept, so a refused document costs its parse and nothing after.
  const valid = new WeakSet<DocumentNode>();
  const sources = new WeakMap<DocumentNode, string>();
  // The cost limit depends on the request's variables and operation, so it is a rule of its own for
  // each request (graphql-http hands `validate` the rules `validationRules` returned), and it holds
  // every request, the document cached or not: a cached one is only costed, not walked again. Costs
  // that depend on neither are kept per operation.
  const costRequests = new WeakMap<ValidationRule, CostRequest>();
  const knownCosts: KnownCosts = new WeakMap();
  const { onOperation } = options;
  const run = options.tracer ? tracedExecute(options.tracer) : execute;
  const handler = createHandler<GraphQLContext & Record<PropertyKey, unknown>>({
    schema,
    ...(onOperation
      ? {
          // Noted when the request's parameters are read; replaced once the operation executes.
          onSubscribe: (req, params) => {
            const seen = requestState.get(req.raw);
            if (seen) seen.operation = refusedOperation(params.query, params.operationName);
          },
          onOperation: (req, args, result) => {
            const seen = requestState.get(req.raw);
            const ast = getOperationAST(args.document, args.operationName);
            if (seen && ast) {
              const failed = 'errors' in result && result.errors !== undefined && result.errors.length > 0;
              seen.operation = {
                name: args.operationName ?? ast.name?.value,
                kind: ast.operation,
                outcome: failed ? 'error' : 'success',
              };
            }
          },
        }
      : {}),
    validationRules: (_req, args, specifiedRules) => {
      const cost = costLimit(options.maxCost, args, knownCosts);
      costRequests.set(cost, args);
      return [...specifiedRules, ...rules, cost];
    },
    // A Decimal variable given as a JSON number is read by its text in the request, not as the parsed double.
    execute: (args) => run(withDecimalTexts(args, () => variableTexts.get(args.contextValue as object)?.())),
    parse: (source, parseOptions) => {
      if (typeof source !== 'string' || parseOptions !== undefined)
        return parseBounded(source, options.maxTokens, parseOptions);
      const cached = cache.get(source);
      if (cached) return cached;
      const document = parseBounded(source, options.maxTokens);
      sources.set(document, source);
      return document;
    },
    validate: (validationSchema, document, validationRules, validationOptions, typeInfo) => {
      if (validationSchema !== schema || typeInfo !== undefined)
        return validate(validationSchema, document, validationRules, validationOptions, typeInfo);
      if (valid.has(document)) {
        const request = validationRules?.map((rule) => costRequests.get(rule)).find((found) => found !== undefined);
        const refusal = request && costRefusal(schema, document, options.maxCost, request, knownCosts);
        return refusal ? [refusal] : [];
      }
      const errors = validate(validationSchema, document, validationRules, validationOptions);
      const source = sources.get(document);
      if (errors.length === 0 && source !== undefined) {
        valid.add(document);
        cache.set(source, document, documentWeight(source, document));
      }
      return errors;
    },
    context: (req) => {
      const state = requestState.get(req.raw);
      const bearer = state && state.authorization !== '' ? bearerToken(state.authorization) : undefined;
      const context: GraphQLContext & Record<PropertyKey, unknown> = {
        bearer: bearer && 'token' in bearer ? bearer.token : undefined,
        bearerProblem: bearer && 'problem' in bearer ? bearer.problem : undefined,
        access,
        // Built only if a resolver logs.
        get log(): Logger {
          return state!.state.log;
        },
        onAuthenticated: (claims) => {
          state!.state.principal = { userId: claims.userId, role: claims.role, sessionId: claims.sessionId };
        },
      };
      if (state) variableTexts.set(context, state.variablesText);
      return context;
    },
    formatError: (error) => (options.introspection ? (error as GraphQLError) : suggestionFree(error as GraphQLError)),
  });

  return (router) => {
    const serve = async (ctx: ParameterizedContext<RequestState>, next: Next) => {
      // Two Authorization headers are a malformed request: 400 in the REST envelope, before graphql-http.
      const seen: RequestSeen = {
        authorization: authorizationHeader(ctx),
        state: ctx.state,
        variablesText: () => variablesTextOf(ctx),
      };
      requestState.set(ctx.req, seen);
      try {
        await handler(ctx as never, next);
      } finally {
        const { operation } = seen;
        // Only an authenticated caller's operation names are counted by name: anonymous clients
        // could otherwise use up the bounded set of names (theirs count under `anonymous`).
        if (onOperation && operation)
          onOperation(ctx.state.principal ? operation.name : undefined, operation.kind, operation.outcome);
      }
    };
    router.get(options.generalRoute, serve);
    router.post(options.generalRoute, serve);

    if (!options.playground) return;
    servePage(
      router,
      options.playgroundRoute,
      playgroundPage(options.playgroundRoute, options.generalRoute),
      PLAYGROUND_ASSETS,
    );
  };
}
