import { expect } from 'chai';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { RouteModule } from '../../../../src/adapters/inbound/http/app.js';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PreconditionFailedError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from '../../../../src/domain/shared/DomainError.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';
import { capturingLogger } from '../../../support/logger.js';

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * A request through node:http, for what fetch cannot send: no content type at all, chunked
 * bodies, a body on GET.
 */
function raw(
  baseUrl: string,
  options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    chunks?: string[];
  },
): Promise<RawAnswer> {
  const url = new URL(options.path, baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(options.body));
  return new Promise<RawAnswer>((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method, headers },
      (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer (413, 415) before it has read the whole body.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (options.chunks) for (const chunk of options.chunks) req.write(chunk);
    else if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

interface ErrorEnvelope {
  success: false;
  error: { code: string; message: string; detail?: string; fields?: { field: string; message: string }[] };
}

async function errorOf(res: Response): Promise<ErrorEnvelope> {
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  const body = (await res.json()) as ErrorEnvelope;
  expectEnvelope(body);
  return body;
}

function errorOfRaw(answer: RawAnswer): ErrorEnvelope {
  expect(answer.headers['content-type']).to.match(/^application\/json/);
  const body = JSON.parse(answer.text) as ErrorEnvelope;
  expectEnvelope(body);
  return body;
}

function expectEnvelope(body: ErrorEnvelope): void {
  expect(body).to.have.all.keys('success', 'error');
  expect(body.success).to.equal(false);
  expect(body.error.code)
    .to.be.a('string')
    .and.match(/^[A-Z_]+$/);
  expect(body.error.message).to.be.a('string').and.not.equal('');
  const allowed = ['code', 'message', 'detail', 'fields'];
  for (const key of Object.keys(body.error)) expect(allowed).to.include(key);
}

const echo: RouteModule = (router) => {
  const answer = (ctx: { request: { body?: unknown }; body: unknown }): void => {
    const parsed = ctx.request.body;
    ctx.body = {
      success: true,
      data: { bodyType: parsed === undefined ? 'none' : typeof parsed, body: parsed ?? null },
    };
  };
  router.get('/test-route', answer);
  router.post('/echo', answer);
  router.put('/echo', answer);
  router.patch('/echo', answer);
  router.delete('/echo', answer);
  router.get('/echo', answer);
  router.get('/things/search', answer);
  router.get('/things/:id', answer);
  router.put('/things/:id', answer);
  // What Koa's libraries throw (http-errors): a status meant for the client, with headers of its own.
  router.get('/library-refusal', () => {
    throw Object.assign(new Error('Method Not Allowed'), {
      status: 405,
      expose: true,
      headers: { Allow: 'POST', 'X-Ignored': 7 },
    });
  });
};

const JSON_HEADERS = { 'Content-Type': 'application/json' };

describe('HTTP adapter: errors and bodies', () => {
  describe('routing', () => {
    let app: RunningApp;
    before(async () => {
      app = await startHttpApp({ routes: [echo] });
    });
    after(async () => {
      await app.close();
    });

    it("answers a library's exposed error in the envelope, with the string headers it carries", async () => {
      const res = await fetch(`${app.url}/library-refusal`);
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('POST');
      expect(res.headers.get('x-ignored')).to.equal(null);
      expect((await errorOf(res)).error.code).to.equal('METHOD_NOT_ALLOWED');
    });

    it('answers 404 NOT_FOUND `route not found` in the envelope for an unknown path', async () => {
      const res = await fetch(`${app.url}/no/such/route`);
      expect(res.status).to.equal(404);
      const body = await errorOf(res);
      expect(body.error.code).to.equal('NOT_FOUND');
      expect(body.error.message).to.equal('route not found');
    });

    it('answers 404 for an unknown path on POST with a valid body as well', async () => {
      const res = await fetch(`${app.url}/nowhere`, { method: 'POST', headers: JSON_HEADERS, body: '{"a":1}' });
      expect(res.status).to.equal(404);
      expect((await errorOf(res)).error.message).to.equal('route not found');
    });

    it('answers 405 METHOD_NOT_ALLOWED with an Allow header listing GET when the path exists under another method', async () => {
      const res = await fetch(`${app.url}/test-route`, { method: 'POST' });
      expect(res.status).to.equal(405);
      const body = await errorOf(res);
      expect(body.error.code).to.equal('METHOD_NOT_ALLOWED');
      const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      expect(allow).to.include('GET');
      expect(allow).to.not.include('POST');
      expect(allow).to.not.include('DELETE');
    });

    it('answers 405 with Allow listing GET for DELETE on a GET-only path', async () => {
      const res = await fetch(`${app.url}/test-route`, { method: 'DELETE' });
      expect(res.status).to.equal(405);
      expect((await errorOf(res)).error.code).to.equal('METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).to.include('GET');
    });

    it('lists only the literal route in Allow where a parameter route matches the path too (/things/search, not /things/:id)', async () => {
      const post = await fetch(`${app.url}/things/search`, { method: 'POST' });
      expect(post.status).to.equal(405);
      expect(post.headers.get('allow')).to.equal('HEAD, GET, OPTIONS');
      const options = await fetch(`${app.url}/things/search`, { method: 'OPTIONS' });
      expect(options.status).to.equal(204);
      expect(options.headers.get('allow')).to.equal('HEAD, GET, OPTIONS');
      const item = await fetch(`${app.url}/things/1`, { method: 'POST' });
      expect(item.headers.get('allow')).to.equal('HEAD, GET, PUT, OPTIONS');
    });
  });

  describe('request bodies', () => {
    let app: RunningApp;
    before(async () => {
      app = await startHttpApp({ routes: [echo], bodyLimitBytes: 1024 });
    });
    after(async () => {
      await app.close();
    });

    it('parses a JSON object body', async () => {
      const res = await fetch(`${app.url}/echo`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: '{"name":"x","price":2}',
      });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { data: { body: unknown } };
      expect(body.data.body).to.deep.equal({ name: 'x', price: 2 });
    });

    for (const method of ['PUT', 'PATCH']) {
      it(`parses a JSON body on ${method}`, async () => {
        const res = await fetch(`${app.url}/echo`, { method, headers: JSON_HEADERS, body: '{"k":"v"}' });
        expect(res.status).to.equal(200);
        expect(((await res.json()) as { data: { body: unknown } }).data.body).to.deep.equal({ k: 'v' });
      });
    }

    it('parses a JSON body on DELETE', async () => {
      const res = await fetch(`${app.url}/echo`, {
        method: 'DELETE',
        headers: JSON_HEADERS,
        body: '{"role":"user","path":"/x"}',
      });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { data: { bodyType: string; body: unknown } };
      expect(body.data.bodyType).to.equal('object');
      expect(body.data.body).to.deep.equal({ role: 'user', path: '/x' });
    });

    it('accepts application/json with a charset', async () => {
      const res = await fetch(`${app.url}/echo`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ name: 'café' }),
      });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { data: { body: unknown } }).data.body).to.deep.equal({ name: 'café' });
    });

    it('parses a chunked JSON body (no Content-Length)', async () => {
      const answer = await raw(app.url, {
        method: 'POST',
        path: '/echo',
        headers: JSON_HEADERS,
        chunks: ['{"a":', '[1,2', ']}'],
      });
      expect(answer.status).to.equal(200);
      expect((JSON.parse(answer.text) as { data: { body: unknown } }).data.body).to.deep.equal({ a: [1, 2] });
    });

    it('leaves a GET with no body untouched', async () => {
      const res = await fetch(`${app.url}/echo`);
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { data: { bodyType: string } }).data.bodyType).to.equal('none');
    });

    it('does not parse or refuse a body sent on GET, whatever its type', async () => {
      const answer = await raw(app.url, {
        method: 'GET',
        path: '/echo',
        headers: { 'Content-Type': 'text/plain' },
        body: 'hello',
      });
      expect(answer.status).to.equal(200);
      expect((JSON.parse(answer.text) as { data: { bodyType: string } }).data.bodyType).to.equal('none');
    });

    it('lets a POST with an empty body and no content type through', async () => {
      const answer = await raw(app.url, { method: 'POST', path: '/echo', body: '' });
      expect(answer.status).to.equal(200);
      expect((JSON.parse(answer.text) as { data: { bodyType: string } }).data.bodyType).to.equal('none');
    });

    it('answers 400 BAD_REQUEST `invalid request body` for malformed JSON', async () => {
      const res = await fetch(`${app.url}/echo`, { method: 'POST', headers: JSON_HEADERS, body: '{"name": "x",' });
      expect(res.status).to.equal(400);
      const body = await errorOf(res);
      expect(body.error.code).to.equal('BAD_REQUEST');
      expect(body.error.message).to.equal('invalid request body');
    });

    for (const scalar of ['"just a string"', '42', 'true', 'null']) {
      it(`parses the JSON scalar ${scalar} (valid JSON) and hands it to the route, which says what shape it needs`, async () => {
        const res = await fetch(`${app.url}/echo`, { method: 'POST', headers: JSON_HEADERS, body: scalar });
        expect(res.status).to.equal(200);
        expect(((await res.json()) as { data: { body: unknown } }).data.body).to.deep.equal(JSON.parse(scalar));
      });
    }

    it('answers 400 for malformed JSON sent chunked', async () => {
      const answer = await raw(app.url, {
        method: 'PUT',
        path: '/echo',
        headers: JSON_HEADERS,
        chunks: ['{"a":', 'oops'],
      });
      expect(answer.status).to.equal(400);
      expect(errorOfRaw(answer).error).to.include({ code: 'BAD_REQUEST', message: 'invalid request body' });
    });

    it('answers 413 PAYLOAD_TOO_LARGE for a JSON body over the limit', async () => {
      const big = JSON.stringify({ filler: 'x'.repeat(2000) });
      const res = await fetch(`${app.url}/echo`, { method: 'POST', headers: JSON_HEADERS, body: big });
      expect(res.status).to.equal(413);
      expect((await errorOf(res)).error.code).to.equal('PAYLOAD_TOO_LARGE');
    });

    it('answers 413 for a chunked JSON body that grows past the limit', async () => {
      const chunks = ['{"filler":"', ...Array.from({ length: 4 }, () => 'y'.repeat(500)), '"}'];
      const answer = await raw(app.url, { method: 'POST', path: '/echo', headers: JSON_HEADERS, chunks });
      expect(answer.status).to.equal(413);
      expect(errorOfRaw(answer).error.code).to.equal('PAYLOAD_TOO_LARGE');
    });

    it('accepts a JSON body just under the limit', async () => {
      const body = JSON.stringify({ filler: 'z'.repeat(1000) });
      expect(Buffer.byteLength(body)).to.be.at.most(1024);
      const res = await fetch(`${app.url}/echo`, { method: 'POST', headers: JSON_HEADERS, body });
      expect(res.status).to.equal(200);
    });

    it('answers 415 UNSUPPORTED_MEDIA_TYPE for a text/plain body', async () => {
      const res = await fetch(`${app.url}/echo`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: '{"a":1}',
      });
      expect(res.status).to.equal(415);
      expect((await errorOf(res)).error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 415 for a form-urlencoded body', async () => {
      const res = await fetch(`${app.url}/echo`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'email=a%40b.c&password=secret',
      });
      expect(res.status).to.equal(415);
      expect((await errorOf(res)).error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 415 for a body with no content type', async () => {
      const answer = await raw(app.url, { method: 'POST', path: '/echo', body: '{"a":1}' });
      expect(answer.status).to.equal(415);
      expect(errorOfRaw(answer).error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 415 for a chunked body with no content type', async () => {
      const answer = await raw(app.url, { method: 'PATCH', path: '/echo', chunks: ['{"a"', ':1}'] });
      expect(answer.status).to.equal(415);
      expect(errorOfRaw(answer).error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 415 for a body on DELETE with a non-JSON type', async () => {
      const res = await fetch(`${app.url}/echo`, {
        method: 'DELETE',
        headers: { 'Content-Type': 'text/plain' },
        body: 'x',
      });
      expect(res.status).to.equal(415);
    });

    it('answers 415, not 413, for a non-JSON body over the size limit (type is checked first)', async () => {
      const res = await fetch(`${app.url}/echo`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: 'x'.repeat(5000),
      });
      expect(res.status).to.equal(415);
      expect((await errorOf(res)).error.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers 415, not 413, for a big body with no content type', async () => {
      const answer = await raw(app.url, { method: 'POST', path: '/echo', body: 'x'.repeat(5000) });
      expect(answer.status).to.equal(415);
    });

    it('accepts a JSON content type written in upper case', async () => {
      const res = await fetch(`${app.url}/echo`, {
        method: 'POST',
        headers: { 'Content-Type': 'Application/JSON' },
        body: '{"a":1}',
      });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { data: { body: unknown } }).data.body).to.deep.equal({ a: 1 });
    });

    it('answers 400, not 404, for a malformed body sent to an unknown path (the parser runs before the router)', async () => {
      const res = await fetch(`${app.url}/no/such/route`, { method: 'POST', headers: JSON_HEADERS, body: '{bad' });
      expect(res.status).to.equal(400);
      expect((await errorOf(res)).error.code).to.equal('BAD_REQUEST');
    });

    it('answers 415, not 404, for a non-JSON body sent to an unknown path', async () => {
      const res = await fetch(`${app.url}/no/such/route`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: 'x',
      });
      expect(res.status).to.equal(415);
    });

    it('answers 400, not 405, for a malformed body sent with a method the path does not have', async () => {
      const res = await fetch(`${app.url}/test-route`, { method: 'PUT', headers: JSON_HEADERS, body: '{bad' });
      expect(res.status).to.equal(400);
      expect((await errorOf(res)).error.code).to.equal('BAD_REQUEST');
    });

    it('answers 400 for a malformed body before a route that would answer 401 runs', async () => {
      const secured = await startHttpApp({
        routes: [
          (router) => {
            const requireToken = async (
              ctx: { get(name: string): string },
              next: () => Promise<unknown>,
            ): Promise<void> => {
              if (!ctx.get('Authorization')) throw new UnauthorizedError('missing bearer token');
              await next();
            };
            router.post('/secure', requireToken, (ctx) => {
              ctx.body = { success: true, data: {} };
            });
          },
        ],
      });
      try {
        const noToken = await fetch(`${secured.url}/secure`, {
          method: 'POST',
          headers: JSON_HEADERS,
          body: '{"ok":true}',
        });
        expect(noToken.status, 'a well-formed body without a token is 401').to.equal(401);
        const bad = await fetch(`${secured.url}/secure`, { method: 'POST', headers: JSON_HEADERS, body: '{not json' });
        expect(bad.status).to.equal(400);
        expect((await errorOf(bad)).error).to.include({ code: 'BAD_REQUEST', message: 'invalid request body' });
        const wrongType = await fetch(`${secured.url}/secure`, {
          method: 'POST',
          headers: { 'Content-Type': 'text/plain' },
          body: 'hi',
        });
        expect(wrongType.status, 'a non-JSON body is 415 before auth').to.equal(415);
      } finally {
        await secured.close();
      }
    });
  });

  describe('failures thrown by routes', () => {
    let app: RunningApp;
    let captured: ReturnType<typeof capturingLogger>;
    const secretMessage = 'connect ECONNREFUSED at /srv/portico/src/secret/Module.ts: SELECT * FROM users';

    before(async () => {
      captured = capturingLogger();
      app = await startHttpApp({
        logger: captured.logger,
        routes: [
          (router) => {
            router.get('/plain-error', () => {
              throw new Error(secretMessage);
            });
            router.get('/string-thrown', () => {
              throw 'a bare string with /etc/passwd';
            });
            router.get('/undefined-thrown', () => {
              throw undefined;
            });
            router.get('/async-error', async () => {
              await new Promise((resolve) => setTimeout(resolve, 5));
              throw new TypeError("Cannot read properties of undefined (reading 'x')");
            });
            router.get('/not-found', () => {
              throw new NotFoundError('Product', '7');
            });
            router.get('/validation', () => {
              throw new ValidationError([
                { field: 'price', message: 'must be greater than 0' },
                { field: 'first_name', message: 'must not be empty' },
              ]);
            });
            router.get('/conflict', () => {
              throw new ConflictError('email already registered');
            });
            router.get('/precondition', () => {
              throw new PreconditionFailedError('product is not at the expected version; read it again');
            });
            router.get('/unauthorized', () => {
              throw new UnauthorizedError('invalid token');
            });
            router.get('/forbidden', () => {
              throw new ForbiddenError();
            });
            router.get('/unavailable', () => {
              throw new ServiceUnavailableError();
            });
            router.get('/rate-limited', () => {
              throw new RateLimitedError(30);
            });
          },
        ],
      });
    });
    after(async () => {
      await app.close();
    });

    it('answers a plain Error with 500 INTERNAL_ERROR `internal server error` and nothing internal', async () => {
      const res = await fetch(`${app.url}/plain-error`);
      expect(res.status).to.equal(500);
      const text = await res.text();
      const body = JSON.parse(text) as ErrorEnvelope;
      expect(body).to.deep.equal({
        success: false,
        error: { code: 'INTERNAL_ERROR', message: 'internal server error' },
      });
      expect(text).to.not.include('ECONNREFUSED');
      expect(text).to.not.include('SELECT');
      expect(text).to.not.include('/srv/');
      expect(text).to.not.include('.ts');
      expect(text).to.not.include('at ');
      expect(text).to.not.include('stack');
    });

    it('logs the stack of the plain Error', async () => {
      const before = captured.lines().length;
      expect((await fetch(`${app.url}/plain-error`)).status).to.equal(500);
      const line = captured
        .lines()
        .slice(before)
        .find((l) => l.msg === 'unhandled error');
      expect(line, 'recovery logs the failure').to.not.equal(undefined);
      const err = line!.err as { message?: string; stack?: string };
      expect(err.message).to.equal(secretMessage);
      expect(err.stack).to.be.a('string');
      expect(err.stack).to.include('errors.test.ts');
    });

    it('answers an async TypeError with 500 INTERNAL_ERROR and no message', async () => {
      const res = await fetch(`${app.url}/async-error`);
      expect(res.status).to.equal(500);
      const text = await res.text();
      expect(JSON.parse(text)).to.deep.equal({
        success: false,
        error: { code: 'INTERNAL_ERROR', message: 'internal server error' },
      });
      expect(text).to.not.include('Cannot read');
    });

    it('answers a thrown string with 500 INTERNAL_ERROR', async () => {
      const res = await fetch(`${app.url}/string-thrown`);
      expect(res.status).to.equal(500);
      const text = await res.text();
      expect(JSON.parse(text)).to.deep.equal({
        success: false,
        error: { code: 'INTERNAL_ERROR', message: 'internal server error' },
      });
      expect(text).to.not.include('passwd');
    });

    it('answers a thrown undefined with 500 INTERNAL_ERROR', async () => {
      const res = await fetch(`${app.url}/undefined-thrown`);
      expect(res.status).to.equal(500);
      expect((await errorOf(res)).error).to.deep.equal({ code: 'INTERNAL_ERROR', message: 'internal server error' });
    });

    it('keeps serving after a failure', async () => {
      expect((await fetch(`${app.url}/plain-error`)).status).to.equal(500);
      expect((await fetch(`${app.url}/not-found`)).status).to.equal(404);
    });

    it('answers NotFoundError with 404 NOT_FOUND and its detail', async () => {
      const res = await fetch(`${app.url}/not-found`);
      expect(res.status).to.equal(404);
      expect((await errorOf(res)).error).to.deep.equal({
        code: 'NOT_FOUND',
        message: 'Product not found',
        detail: 'id: 7',
      });
    });

    it('answers ValidationError with 400 VALIDATION_ERROR and every field', async () => {
      const res = await fetch(`${app.url}/validation`);
      expect(res.status).to.equal(400);
      expect((await errorOf(res)).error).to.deep.equal({
        code: 'VALIDATION_ERROR',
        message: 'validation failed',
        fields: [
          { field: 'price', message: 'must be greater than 0' },
          { field: 'first_name', message: 'must not be empty' },
        ],
      });
    });

    const simple: [string, number, string, string][] = [
      ['/conflict', 409, 'CONFLICT', 'email already registered'],
      ['/precondition', 412, 'PRECONDITION_FAILED', 'product is not at the expected version; read it again'],
      ['/unauthorized', 401, 'UNAUTHORIZED', 'invalid token'],
      ['/forbidden', 403, 'FORBIDDEN', 'forbidden'],
      ['/unavailable', 503, 'SERVICE_UNAVAILABLE', 'service unavailable'],
    ];
    for (const [path, status, code, message] of simple) {
      it(`answers ${path.slice(1)} with ${status} ${code}`, async () => {
        const res = await fetch(`${app.url}${path}`);
        expect(res.status).to.equal(status);
        expect((await errorOf(res)).error).to.deep.equal({ code, message });
      });
    }

    it('answers RateLimitedError(30) with 429 RATE_LIMITED and Retry-After 30', async () => {
      const res = await fetch(`${app.url}/rate-limited`);
      expect(res.status).to.equal(429);
      expect(res.headers.get('retry-after')).to.equal('30');
      expect((await errorOf(res)).error.code).to.equal('RATE_LIMITED');
    });

    it('does not log expected domain errors as internal failures', async () => {
      const before = captured.lines().length;
      expect((await fetch(`${app.url}/not-found`)).status).to.equal(404);
      const fresh = captured.lines().slice(before);
      expect(fresh.filter((l) => l.msg === 'unhandled error')).to.have.length(0);
    });
  });
});
