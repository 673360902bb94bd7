import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { badRequestBody, HttpProblem, payloadTooLarge, unsupportedMediaType } from '../HttpProblem.js';
import type { RequestState } from '../state.js';

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * JSON bodies only, on POST, PUT, PATCH and DELETE. In order: a non-empty body that is not
 * `application/json` (any charset) → 415; over `limitBytes` → 413; not JSON → 400
 * `invalid request body`. The parsed body lands on `ctx.request.body`.
 */
export function bodyParser(limitBytes: number): Middleware<RequestState> {
  const parse = koaBody({
    json: true,
    multipart: false,
    urlencoded: false,
    text: false,
    jsonLimit: limitBytes,
    jsonStrict: false, // any JSON value parses; routes then say what shape they need (VALIDATION_ERROR)
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
    onError: (error) => {
      const status = (error as { status?: number }).status;
      if (status === 413) throw payloadTooLarge(limitBytes);
      if (status === 415) throw unsupportedMediaType();
      throw badRequestBody();
    },
  });
  return async (ctx, next) => {
    if (!PARSED_METHODS.has(ctx.method) || !hasBody(ctx.req.headers)) return next();
    if (ctx.request.is('application/json') !== 'application/json') throw unsupportedMediaType();
    try {
      await parse(ctx, async () => undefined);
    } catch (error) {
      if (error instanceof HttpProblem) throw error;
      throw badRequestBody();
    }
    return next();
  };
}
