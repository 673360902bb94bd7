import { expect } from 'chai';
import type { HttpAppOptions, RouteModule } from '../../../../src/adapters/inbound/http/app.js';
import { cors } from '../../../../src/adapters/inbound/http/runtime/index.js';
import { defaultHttpOptions, startHttpApp, type RunningApp } from '../../../support/httpApp.js';

const routes: RouteModule = (router) => {
  router.get('/things', (ctx) => {
    ctx.body = { success: true, data: [] };
  });
  router.post('/things', (ctx) => {
    ctx.status = 201;
    ctx.body = { success: true, data: ctx.request.body };
  });
  router.get('/boom', () => {
    throw new Error('kaboom');
  });
};

const ALLOWED = 'https://app.example.com';
const OTHER_ALLOWED = 'https://admin.example.com';
const STRANGER = 'https://evil.example.net';

function corsWith(overrides: Partial<HttpAppOptions['cors']>): HttpAppOptions['cors'] {
  return { ...defaultHttpOptions().cors, ...overrides };
}

const splitList = (value: string | null): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');

describe('HTTP adapter: CORS', () => {
  let app: RunningApp;
  afterEach(async () => {
    await app.close();
  });

  describe('with the default origin `*`', () => {
    beforeEach(async () => {
      app = await startHttpApp({ routes: [routes] });
    });

    it('gives a simple request Access-Control-Allow-Origin `*` and the exposed headers', async () => {
      const res = await fetch(`${app.url}/things`, { headers: { Origin: ALLOWED } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      const exposed = splitList(res.headers.get('access-control-expose-headers'));
      for (const name of [
        'x-request-id',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'retry-after',
      ]) {
        expect(exposed).to.include(name);
      }
      expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
    });

    it('answers a preflight with 204, the allowed methods and headers and a max age of 43200', async () => {
      const res = await fetch(`${app.url}/things`, {
        method: 'OPTIONS',
        headers: {
          Origin: ALLOWED,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type, authorization',
        },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      const methods = splitList(res.headers.get('access-control-allow-methods'));
      for (const m of ['get', 'post', 'put', 'delete', 'options']) expect(methods).to.include(m);
      const headers = splitList(res.headers.get('access-control-allow-headers'));
      for (const h of ['authorization', 'content-type', 'x-request-id']) expect(headers).to.include(h);
      expect(res.headers.get('access-control-max-age')).to.equal('43200');
      expect(await res.text()).to.equal('');
    });

    it('answers a preflight for a path with no route too (the browser asks before it knows)', async () => {
      const res = await fetch(`${app.url}/not/routed`, {
        method: 'OPTIONS',
        headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'GET' },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    });

    it('keeps the CORS headers on a 404', async () => {
      const res = await fetch(`${app.url}/missing`, { headers: { Origin: ALLOWED } });
      expect(res.status).to.equal(404);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      expect(splitList(res.headers.get('access-control-expose-headers'))).to.include('x-request-id');
    });

    it('keeps the CORS headers on a 500', async () => {
      const res = await fetch(`${app.url}/boom`, { headers: { Origin: ALLOWED } });
      expect(res.status).to.equal(500);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      expect(splitList(res.headers.get('access-control-expose-headers'))).to.include('x-request-id');
    });

    it('keeps the CORS headers on a 405 and on a 400 from the body parser', async () => {
      const wrongMethod = await fetch(`${app.url}/things`, { method: 'DELETE', headers: { Origin: ALLOWED } });
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.headers.get('access-control-allow-origin')).to.equal('*');
      expect(wrongMethod.headers.get('allow')).to.include('GET');
      const badBody = await fetch(`${app.url}/things`, {
        method: 'POST',
        headers: { Origin: ALLOWED, 'Content-Type': 'application/json' },
        body: '{nope',
      });
      expect(badBody.status).to.equal(400);
      expect(badBody.headers.get('access-control-allow-origin')).to.equal('*');
    });
  });

  describe('with a list of origins', () => {
    beforeEach(async () => {
      app = await startHttpApp({ routes: [routes], cors: corsWith({ allowedOrigins: [ALLOWED, OTHER_ALLOWED] }) });
    });

    it('echoes an allowed origin, with Vary: Origin', async () => {
      for (const origin of [ALLOWED, OTHER_ALLOWED]) {
        const res = await fetch(`${app.url}/things`, { headers: { Origin: origin } });
        expect(res.status).to.equal(200);
        expect(res.headers.get('access-control-allow-origin')).to.equal(origin);
        expect(splitList(res.headers.get('vary'))).to.include('origin');
        expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      }
    });

    it('echoes an allowed origin on a preflight', async () => {
      const res = await fetch(`${app.url}/things`, {
        method: 'OPTIONS',
        headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'POST' },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      expect(splitList(res.headers.get('vary'))).to.include('origin');
    });

    it('gives a disallowed origin no Access-Control-Allow-Origin', async () => {
      const res = await fetch(`${app.url}/things`, { headers: { Origin: STRANGER } });
      expect(res.status, 'the request itself is still served').to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      expect(splitList(res.headers.get('vary'))).to.include('origin');
    });

    it('gives a disallowed origin no Access-Control-Allow-Origin on a preflight', async () => {
      const res = await fetch(`${app.url}/things`, {
        method: 'OPTIONS',
        headers: { Origin: STRANGER, 'Access-Control-Request-Method': 'POST' },
      });
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      expect(res.headers.get('access-control-allow-methods')).to.equal(null);
    });

    it('does not match an origin by prefix, suffix or scheme', async () => {
      for (const origin of [`${ALLOWED}.evil.net`, 'https://app.example.co', 'http://app.example.com']) {
        const res = await fetch(`${app.url}/things`, { headers: { Origin: origin } });
        expect(res.headers.get('access-control-allow-origin'), origin).to.equal(null);
      }
    });

    it('echoes an allowed origin on error answers (404, 500)', async () => {
      const notFound = await fetch(`${app.url}/missing`, { headers: { Origin: ALLOWED } });
      expect(notFound.status).to.equal(404);
      expect(notFound.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      expect(splitList(notFound.headers.get('vary'))).to.include('origin');
      const failed = await fetch(`${app.url}/boom`, { headers: { Origin: ALLOWED } });
      expect(failed.status).to.equal(500);
      expect(failed.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      expect(splitList(failed.headers.get('vary'))).to.include('origin');
    });
  });

  describe('with a list of origins and credentials', () => {
    beforeEach(async () => {
      app = await startHttpApp({
        routes: [routes],
        cors: corsWith({ allowedOrigins: [ALLOWED], allowCredentials: true }),
      });
    });

    it('gives an allowed origin Access-Control-Allow-Credentials: true', async () => {
      const res = await fetch(`${app.url}/things`, { headers: { Origin: ALLOWED } });
      expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
    });

    it('gives an allowed origin credentials on a preflight', async () => {
      const res = await fetch(`${app.url}/things`, {
        method: 'OPTIONS',
        headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'PUT' },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
    });

    it('gives a disallowed origin neither the origin nor credentials', async () => {
      const res = await fetch(`${app.url}/things`, { headers: { Origin: STRANGER } });
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
    });

    it('keeps credentials on a 500', async () => {
      const res = await fetch(`${app.url}/boom`, { headers: { Origin: ALLOWED } });
      expect(res.status).to.equal(500);
      expect(res.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
      expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
    });
  });
});

describe('HTTP adapter: CORS with credentials and the origin `*`', () => {
  it('refuses to build: @koa/cors would echo any Origin with credentials', () => {
    expect(() => cors(corsWith({ allowedOrigins: ['*'], allowCredentials: true }))).to.throw(
      'credentials cannot be combined',
    );
  });
});
