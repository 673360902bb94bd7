import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { badRequestBody, HttpProblem, payloadTooLarge, unsupportedMediaType } from '../../HttpProblem.js';
import type { RequestState } from '../../state.js';

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Route middleware that marks a route as reading its own body, streamed (a file upload): the body
 * parser leaves such a request alone — no JSON, no `server.body_limit` — and the route takes the
 * body's own type and holds it to its own limit. Put it first: `router.put(path, streamsBody, handler)`.
 */
export const streamsBody: Middleware = (_ctx, next) => next();

/** Whether a request is for a route marked {@link streamsBody}: tests only those routes' patterns (few). */
export function streamedBodies(router: Router<RequestState>): (ctx: Context) => boolean {
  const marked = router.stack.filter((layer) => (layer.stack as unknown[]).includes(streamsBody));
  if (marked.length === 0) return () => false;
  return (ctx) => marked.some((layer) => layer.methods.includes(ctx.method) && layer.regexp.test(ctx.path));
}

/** The body step of the spine: `undefined` for a request with no body to parse, else the parse's promise. */
export type BodyStep = (ctx: Context) => Promise<void> | undefined;

/**
 * JSON bodies only, on POST, PUT, PATCH and DELETE. In order: a non-empty body that is not
 * `application/json` (any charset) → 415; over `limitBytes` → 413; not JSON → 400
 * `invalid request body`. The parsed body lands on `ctx.request.body`, the text it was parsed from
 * on `ctx.request.rawBody`. A request for a route that `streams` its body (see {@link streamsBody}) is not
 * parsed.
 */
export function bodyParser(limitBytes: number, streams: (ctx: Context) => boolean = () => false): BodyStep {
  const parse = koaBody({
    json: true,
    multipart: false,
    urlencoded: false,
    text: false,
    jsonLimit: limitBytes,
    jsonStrict: false, // any JSON value parses; routes then say what shape they need (VALIDATION_ERROR)
    // The text parsed, kept beside it (`ctx.request.rawBody`): an exact decimal's number is read from its digits.
    includeUnparsed: true,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
    onError: (error) => {
      const status = (error as { status?: number }).status;
      if (status === 413) throw payloadTooLarge(limitBytes);
      if (status === 415) throw unsupportedMediaType();
      throw badRequestBody();
    },
  });
  const read = async (ctx: Context): Promise<void> => {
    try {
      await parse(ctx, async () => undefined);
    } catch (error) {
      if (error instanceof HttpProblem) throw error;
      throw badRequestBody();
    }
  };
  return (ctx) => {
    if (!PARSED_METHODS.has(ctx.method) || !hasBody(ctx.req.headers) || streams(ctx)) return undefined;
    if (ctx.request.is('application/json') !== 'application/json') return Promise.reject(unsupportedMediaType());
    return read(ctx);
  };
}
