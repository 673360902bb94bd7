import type Router from '@koa/router';
import { NoSchemaIntrospectionCustomRule, parse, validate, type DocumentNode, type GraphQLError } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/koa';
import type { IncomingMessage } from 'node:http';
import type { Next, ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import { routeNotFound } from '../http/HttpProblem.js';
import { authorizationHeader, bearerToken } from '../http/middleware/authenticate.js';
import type { RequestState } from '../http/state.js';
import { queryLimits } from './limits.js';
import { playgroundAsset, playgroundPage } from './playground.js';
import type { GraphQLContext, GraphQLUseCases } from './resolvers.js';
import { createSchema } from './schema.js';

export interface GraphQLOptions {
  generalRoute: string;
  playgroundRoute: string;
  playground: boolean;
  introspection: boolean;
  maxDepth: number;
}

/** What the Koa request hands to the GraphQL context (graphql-http sees only the raw request). */
const requestState = new WeakMap<IncomingMessage, { authorization: string; state: RequestState }>();

/**
 * The GraphQL API at the general route (GraphQL-over-HTTP: POST JSON and GET) and, when enabled,
 * the offline GraphiQL explorer at the playground route. Authentication and RBAC happen per
 * resolver, never as HTTP middleware, so a bad token never makes an HTTP 401.
 */
export function graphqlRoutes(useCases: GraphQLUseCases, options: GraphQLOptions): (router: Router<RequestState>) => void {
  const schema = createSchema(useCases);
  const rules = [
    queryLimits({ maxDepth: options.maxDepth, maxFields: 500, maxAliases: 30 }),
    ...(options.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
  // Clients send the same few documents over and over: parse and validate each once.
  const parsed = new Map<string, DocumentNode>();
  const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const handler = createHandler<GraphQLContext & Record<PropertyKey, unknown>>({
    schema,
    validationRules: rules,
    parse: (source, options) => {
      if (typeof source !== 'string' || options !== undefined) return parse(source, options);
      let document = parsed.get(source);
      if (!document) {
        document = parse(source);
        if (parsed.size >= 1000) parsed.clear();
        parsed.set(source, document);
      }
      return document;
    },
    validate: (validationSchema, document, validationRules, options, typeInfo) => {
      if (validationSchema !== schema || typeInfo !== undefined) return validate(validationSchema, document, validationRules, options, typeInfo);
      let errors = validated.get(document);
      if (!errors) {
        errors = validate(validationSchema, document, validationRules, options);
        validated.set(document, errors);
      }
      return errors;
    },
    context: (req) => {
      const state = requestState.get(req.raw);
      const bearer = state && state.authorization !== '' ? bearerToken(state.authorization) : undefined;
      return {
        bearer: bearer && 'token' in bearer ? bearer.token : undefined,
        bearerProblem: bearer && 'problem' in bearer ? bearer.problem : undefined,
        // Built only if a resolver logs.
        get log(): Logger {
          return state!.state.log;
        },
        onAuthenticated: (claims) => {
          state!.state.principal = { userId: claims.userId, role: claims.role };
        },
      };
    },
    formatError: (error) => error as GraphQLError,
  });

  return (router) => {
    const serve = async (ctx: ParameterizedContext<RequestState>, next: Next) => {
      // Two Authorization headers are a malformed request: 400 in the REST envelope, before graphql-http.
      requestState.set(ctx.req, { authorization: authorizationHeader(ctx), state: ctx.state });
      await handler(ctx as never, next);
    };
    router.get(options.generalRoute, serve);
    router.post(options.generalRoute, serve);

    if (!options.playground) return;
    const page = playgroundPage(options.playgroundRoute, options.generalRoute);
    router.get(options.playgroundRoute, (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = page;
    });
    router.get(`${options.playgroundRoute.replace(/\/$/, '')}/assets/:name`, async (ctx) => {
      const asset = await playgroundAsset(ctx.params.name ?? '');
      // Thrown, not left unanswered: the route fallback would call an unanswered GET on a known path 405.
      if (!asset) throw routeNotFound();
      ctx.type = asset.type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = asset.body;
    });
  };
}
