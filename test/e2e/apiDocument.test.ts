import { AssertionError } from 'node:assert';
import { expect } from 'chai';
import { routerOf, type RouteModule } from '../../src/adapters/inbound/http/app.js';
import { documentPath } from '../../src/adapters/inbound/http/openapi.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { Api, rawRequest } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { fullContract } from '../support/contract.js';
import { startHttpApp, type RunningApp } from '../support/httpApp.js';
import { silentLogger } from '../support/logger.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

/** Answers documented paths with what the document does not say, to prove the test client's check fails. */
const lying: RouteModule = (router) => {
  // A body whose `data` is not a user (the document's GET /api/v1/profile).
  router.get('/api/v1/profile', (ctx) => {
    ctx.body = { success: true, data: { id: 1 } };
  });
  // A status the document does not list for POST /api/v1/auth/logout.
  router.post('/api/v1/auth/logout', (ctx) => {
    ctx.status = 202;
    ctx.body = { success: true, data: null };
  });
  // 201 with the right body shape but without the ETag the document requires.
  router.post('/api/v1/products', (ctx) => {
    ctx.status = 201;
    const now = new Date().toISOString();
    ctx.body = {
      success: true,
      data: { id: '7b7a2c64-8f5e-4a2f-9d3c-2f1b8a6e4d10', ...PRODUCT_BODY, created_at: now, updated_at: now },
    };
  });
  // A route the document does not have on a path it has: the 405 for PUT then lists it in Allow.
  router.delete('/api/v1/profile', (ctx) => {
    ctx.status = 204;
  });
};

/** The answers of the test client's check: it throws an AssertionError naming the request. */
async function rejection(answer: Promise<unknown>): Promise<AssertionError> {
  try {
    await answer;
  } catch (error) {
    expect(error).to.be.instanceOf(AssertionError);
    return error as AssertionError;
  }
  throw new Error('the answer was accepted');
}

describe('the API document holds every answer of the end-to-end tests', () => {
  describe('the test client fails a test on an answer the document does not describe', () => {
    let app: RunningApp;
    let api: Api;
    before(async () => {
      app = await startHttpApp({ routes: [lying] });
      api = new Api(app.url);
    });
    after(async () => app.close());

    it('throws on a body that breaks the schema', async () => {
      const error = await rejection(api.get('/api/v1/profile'));
      expect(error.message)
        .to.include('GET /api/v1/profile → 200')
        .and.include('data')
        .and.include('{"success":true,"data":{"id":1}}');
    });

    it('throws on a status the operation does not document', async () => {
      const error = await rejection(api.post('/api/v1/auth/logout', { json: { refresh_token: 'x' } }));
      expect(error.message).to.include('POST /api/v1/auth/logout → 202').and.include('logout').and.include('not 202');
    });

    it('throws when a required header is missing', async () => {
      const error = await rejection(api.post('/api/v1/products', { json: PRODUCT_BODY }));
      expect(error.message).to.include('ETag');
    });

    it('throws on a method the document does not have on the path, and on an Allow that differs from the document', async () => {
      expect((await rejection(api.delete('/api/v1/profile'))).message).to.include(
        'the document has no DELETE on /api/v1/profile',
      );
      expect((await rejection(api.post('/api/v1/profile'))).message).to.include(
        'Allow is "HEAD, GET, DELETE, OPTIONS"',
      );
    });

    it('throws on a raw request as well', async () => {
      await rejection(rawRequest(app.url, 'GET', '/api/v1/profile'));
    });

    it('accepts the HTTP layer answers it describes: 404 on an unknown path', async () => {
      expect((await api.get('/api/v1/nowhere')).status).to.equal(404);
    });
  });

  describe('routes ↔ document', () => {
    let service: RunningService;
    before(async () => {
      service = await startService(
        testConfig({ SVC_API_MODE: 'both', SVC_DOCS_ENABLED: 'true', SVC_RATE_LIMIT_ENABLED: 'false' }),
        {
          logger: silentLogger(),
        },
      );
    });
    after(async () => service.stop());

    /** Routes that are not REST operations, and why the document leaves them out. */
    const EXCLUDED: Record<string, string> = {
      '/graphql': 'the GraphQL API, described by its own schema (not REST)',
      '/graphql-playground': 'the GraphiQL page (HTML)',
      '/graphql-playground/assets/{name}': "the GraphiQL page's scripts and styles",
      '/docs': 'the Swagger UI page (HTML)',
      '/docs/assets/{name}': "the Swagger UI page's scripts and styles",
      '/files/*key': "the local storage engine's signed links (the signature is the grant)",
    };

    it('every route the router has is a documented operation, and every documented operation is routed', () => {
      const router = routerOf(service.container.get(TOKENS.HttpApp));
      expect(router, 'the app exposes its router').to.not.equal(undefined);
      const routed = new Set<string>();
      const excluded = new Set<string>();
      for (const layer of router!.stack) {
        const path = documentPath(String(layer.path));
        for (const method of layer.methods) {
          if (method === 'HEAD') continue; // implied by GET
          if (EXCLUDED[path] !== undefined) excluded.add(path);
          else routed.add(`${method} ${path}`);
        }
      }
      const documented = new Set<string>();
      for (const [path, methods] of Object.entries(fullContract().document.paths)) {
        for (const method of Object.keys(methods)) documented.add(`${method.toUpperCase()} ${path}`);
      }
      expect([...routed].sort()).to.deep.equal([...documented].sort());
      // The exclusions are routes the service has: a stale one would hide nothing and mean nothing.
      expect([...excluded].sort()).to.deep.equal(Object.keys(EXCLUDED).sort());
    });
  });
});
