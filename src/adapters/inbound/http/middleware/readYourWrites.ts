import type { Context, Middleware } from 'koa';
import type { ReadYourWrites } from '../../../../application/ports/ReadYourWrites.js';
import type { TokenIssuer } from '../../../../application/ports/TokenIssuer.js';
import type { RequestState } from '../state.js';
import { bearerToken } from './authenticate.js';

/** The key naming a client by its address (`ctx.ip`: the rate limiter's, trusted proxies honoured). */
export const addressKey = (ip: string): string => `address:${ip}`;
/** The key naming a client by its user. */
export const userKey = (userId: string): string => `user:${userId}`;

export interface ReadYourWritesOptions {
  readonly readYourWrites: ReadYourWrites;
  /** Who a request's access token names (verified: an unverified one names no client). */
  readonly tokens: Pick<TokenIssuer, 'verifyAccessToken'>;
  /** The GraphQL route (`graphql.general_route`) when GraphQL is served: a POST there changes something only for a mutation. */
  readonly graphqlPath?: string;
}

const READING_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request means to change something: any method but GET, HEAD and OPTIONS — except a
 * POST to GraphQL whose document names no mutation (a document that only might is taken for one:
 * the primary is the safe side).
 */
function changing(ctx: Context, graphqlPath: string | undefined): boolean {
  if (READING_METHODS.has(ctx.method)) return false;
  if (ctx.method !== 'POST' || ctx.path !== graphqlPath) return true;
  const query = (ctx.request as { body?: unknown }).body;
  const document = typeof query === 'object' && query !== null ? (query as { query?: unknown }).query : undefined;
  return typeof document !== 'string' || /\bmutation\b/.test(document);
}

/**
 * App middleware (with database read replicas): runs the rest of the request so that it reads
 * every write its client made before (`readYourWrites`), the client named by its address and, when
 * it sends a verified access token, its user — so a client reads its writes from one address as
 * from another once signed in. A request that changes something ({@link changing}) reads all on
 * the primary. A request that wrote is remembered for those keys, and for the user
 * authentication found on the route (GraphQL's too). Only the first `Authorization` header is read
 * here; two are refused by authentication itself.
 */
export function readYourWrites(options: ReadYourWritesOptions): Middleware<RequestState> {
  const { tokens } = options;
  return async (ctx, next) => {
    const clients = [addressKey(ctx.ip)];
    const change = changing(ctx, options.graphqlPath);
    // A change reads all on the primary: its client's user is needed only once it ran (the principal).
    const header = change ? '' : ctx.get('Authorization');
    if (header !== '') {
      const bearer = bearerToken(header);
      const claims = 'token' in bearer ? await tokens.verifyAccessToken(bearer.token) : undefined;
      if (claims) clients.push(userKey(claims.userId));
    }
    const writers = (): readonly string[] => {
      const principal = ctx.state.principal;
      return principal ? [...clients, userKey(principal.userId)] : clients;
    };
    await options.readYourWrites.serve({ clients, changing: change, writers }, () => next());
  };
}
