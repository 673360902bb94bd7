import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa, { type Middleware } from 'koa';
import { routeLookup } from '../../../../../src/adapters/inbound/http/runtime/index.js';
import type { RequestState } from '../../../../../src/adapters/inbound/http/state.js';

type Verb = 'get' | 'post' | 'put' | 'delete';

/** A route table shaped like the service's: literals, parameters, a literal beside a parameter, nested parameters. */
const ROUTES: readonly [Verb, string][] = [
  ['get', '/health'],
  ['get', '/health/live'],
  ['post', '/api/v1/auth/login'],
  ['get', '/api/v1/profile'],
  ['get', '/api/v1/admin/users'],
  ['get', '/api/v1/admin/users/:id'],
  ['delete', '/api/v1/admin/users/:id'],
  ['post', '/api/v1/admin/users/:id/logout'],
  ['get', '/api/v1/products'],
  ['post', '/api/v1/products'],
  ['get', '/api/v1/products/search'],
  ['get', '/api/v1/products/:id'],
  ['put', '/api/v1/products/:id'],
  ['delete', '/api/v1/products/:id'],
  ['get', '/docs/assets/:name'],
  ['get', '/graphql'],
  ['post', '/graphql'],
];

const PATHS = [
  '/health',
  '/health/',
  '/Health',
  '/health/live',
  '/api/v1/auth/login',
  '/api/v1/profile',
  '/api/v1/admin/users',
  '/api/v1/admin/users/42',
  '/api/v1/admin/users/42/logout',
  '/api/v1/admin/users/42/other',
  '/api/v1/products',
  '/api/v1/products/',
  '/api/v1/products/search',
  '/api/v1/products/abc',
  '/api/v1/products/a%2Fb',
  '/api/v1/products/abc/def',
  '/api/v1/Products/abc',
  '/docs/assets/app.css',
  '/graphql',
  '/nowhere',
  '/',
];

/**
 * A table whose handlers note which route ran and with what parameters; with `passOn` each calls
 * `next`, so every route that matches runs, in order.
 */
function table(passOn: boolean, first?: (router: Router<RequestState>) => void): Router<RequestState> {
  const router = new Router<RequestState>({ sensitive: true, strict: true });
  first?.(router);
  for (const [verb, path] of ROUTES) {
    const handler: Middleware<RequestState> = async (ctx, next) => {
      const ran = (ctx.body as string[] | undefined) ?? [];
      ctx.body = [
        ...ran,
        `${verb} ${path} ${JSON.stringify(ctx.params)} ${String((ctx as { routerPath?: string }).routerPath)}`,
      ];
      if (passOn) await next();
    };
    router[verb](path, handler);
  }
  return router;
}

async function serve(dispatch: Middleware<RequestState>): Promise<{ server: Server; url: string }> {
  const app = new Koa<RequestState>();
  app.use(dispatch);
  const handle = app.callback();
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('HTTP adapter: route lookup in front of the route table (docs/adr/0031-one-spine.md)', () => {
  for (const passOn of [false, true]) {
    const title = passOn ? ' (every match, in order)' : '';
    it(`runs the same routes, with the same parameters and pattern, as the table itself${title}`, async () => {
      const byTable = await serve(table(passOn).routes() as Middleware<RequestState>);
      const byLookup = await serve(routeLookup(table(passOn)));
      try {
        for (const path of PATHS) {
          for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) {
            const [expected, actual] = await Promise.all(
              [byTable, byLookup].map(async ({ url }) => {
                const res = await fetch(url + path, { method });
                return `${res.status} ${await res.text()}`;
              }),
            );
            expect(actual, `${method} ${path}`).to.equal(expected);
          }
        }
      } finally {
        byTable.server.close();
        byLookup.server.close();
      }
    });
  }

  it('uses the table as it is when a route was added with `use`', async () => {
    const router = table(false, (router) =>
      router.use('/api/v1/products', async (ctx, next) => {
        ctx.set('X-Used', 'yes');
        await next();
      }),
    );
    const { server, url } = await serve(routeLookup(router));
    try {
      const res = await fetch(`${url}/api/v1/products/abc`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-used')).to.equal('yes');
    } finally {
      server.close();
    }
  });
});
