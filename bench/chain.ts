/**
 * The HTTP chain alone, in process: the CPU time per request of `createHttpApp` from two builds
 * (each a checkout with `npm run build` done), every outer layer on, in front of a route table of
 * the service's shape, in alternating rounds; a bare Koa + router app with the driven route alone
 * is the floor. Nothing else runs (no database, no socket), so what differs is the chain and the
 * dispatch. docs/adr/0031-one-spine.md.
 *
 *   node --import tsx bench/chain.ts <checkout A> <checkout B> [rounds] [requests per round]
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';
import { defaultHttpOptions } from '../test/support/httpApp.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const PATH = '/api/v1/products/759635fb-3dad-4e6b-ab68-4b0bf78114fe';
const answer = (id: string): unknown => ({ success: true, data: { id, name: 'Benchmark product 0999', price: 30.99 } });

/**
 * A route table of the service's shape (40 layers in the full service, `api.mode: both`, docs on):
 * the health paths, auth and account, admin, jobs, products, the documents and GraphQL. Each
 * route answers a small body; `GET /api/v1/products/:id`, the one driven, comes 31st, as it does
 * in the service.
 */
function serviceShapedRoutes(router: Router): void {
  const small = (ctx: Koa.Context): void => void (ctx.body = { success: true });
  const get = ['/health', '/health/ready', '/health/live', '/api/v1/profile', '/api/v1/admin/users'];
  for (const path of get) router.get(path, small);
  for (const path of ['register', 'login', 'refresh', 'logout']) router.post(`/api/v1/auth/${path}`, small);
  router.put('/api/v1/profile', small);
  router.get('/api/v1/admin/users/:id', small).put('/api/v1/admin/users/:id', small);
  router.delete('/api/v1/admin/users/:id', small).post('/api/v1/admin/users/:id/logout', small);
  router.get('/api/v1/admin/policies', small).post('/api/v1/admin/policies', small);
  router.delete('/api/v1/admin/policies', small);
  for (const path of ['password/forgot', 'password/reset', 'email/verify/request', 'email/verify'])
    router.post(`/api/v1/auth/${path}`, small);
  router.get('/api/v1/auth/sessions', small).delete('/api/v1/auth/sessions/:id', small);
  router.post('/api/v1/auth/logout-all', small).get('/api/v1/admin/jobs', small);
  router.post('/api/v1/admin/jobs/:id/retry', small).delete('/api/v1/admin/jobs/:id', small);
  router.get('/api/v1/products', small).post('/api/v1/products', small).get('/api/v1/products/search', small);
  router.get('/api/v1/products/:id', (ctx) => void (ctx.body = answer(ctx.params.id!)));
  router.put('/api/v1/products/:id', small).delete('/api/v1/products/:id', small);
  for (const path of ['/api/v1/openapi.json', '/docs', '/docs/assets/:name']) router.get(path, small);
  router.get('/graphql', small).post('/graphql', small).get('/graphql-playground', small);
  router.get('/graphql-playground/assets/:name', small);
}

/** A module of a build, by its path under `dist/src`. */
const moduleOf = async (root: string, path: string): Promise<Record<string, unknown>> =>
  (await import(pathToFileURL(resolve(root, 'dist/src', path)).href)) as Record<string, unknown>;

/** The first of `paths` the build has (the security header module moved in pass 3, the runtime in wave 4). */
async function firstModule(root: string, paths: readonly string[]): Promise<Record<string, unknown>> {
  for (const path of paths) {
    try {
      return await moduleOf(root, path);
    } catch {
      // not in this build
    }
  }
  throw new Error(`${root}: none of ${paths.join(', ')}`);
}

/** A build's app with the defaults of docs/configuration.md (as the tests build it) and every layer on. */
async function buildApp(root: string): Promise<Handler> {
  const { createHttpApp } = (await moduleOf(root, 'adapters/inbound/http/app.js')) as {
    createHttpApp: (options: unknown) => Koa;
  };
  const { securityHeaderList } = (await firstModule(root, [
    'adapters/inbound/http/runtime/index.js',
    'adapters/inbound/http/spine/securityHeaders.js',
    'adapters/inbound/http/middleware/securityHeaders.js',
  ])) as { securityHeaderList: (options: unknown) => unknown };
  const { ServiceMetrics } = (await moduleOf(root, 'adapters/inbound/metrics/ServiceMetrics.js')) as {
    ServiceMetrics: new () => unknown;
  };
  const { TurnBudget } = (await firstModule(root, [
    'adapters/inbound/http/runtime/index.js',
    'adapters/inbound/http/turnBudget.js',
  ])) as {
    TurnBudget: new () => unknown;
  };
  const app = createHttpApp({
    ...defaultHttpOptions(),
    // `enabled` for a build from before the headers lost their switch; later builds ignore it.
    securityHeaders: securityHeaderList({ enabled: true, hsts: false }),
    // The rate limiter is off (`rateLimiter: null`), as in the bench (one client address).
    metrics: new ServiceMetrics(),
    shedding: { maxInFlight: 1_000_000, loopOverloaded: () => false, turns: new TurnBudget() },
    routes: [serviceShapedRoutes],
  });
  return app.callback();
}

function bareApp(): Handler {
  const app = new Koa();
  const router = new Router();
  router.get('/api/v1/products/:id', (ctx) => void (ctx.body = answer(ctx.params.id!)));
  app.use(router.routes());
  return app.callback();
}

/** One request through `handle`, settled once the answer is ended. */
function one(handle: Handler): Promise<void> {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = PATH;
  req.headers = { host: 'localhost', authorization: 'Bearer x', 'user-agent': 'autocannon' };
  req.push(null);
  const res = new ServerResponse(req);
  return new Promise((done) => {
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<typeof res.end>) => {
      const ended = end(...args);
      done();
      return ended;
    }) as typeof res.end;
    void handle(req, res);
  });
}

/** CPU µs per request over `count` requests, 50 at a time. */
async function round(handle: Handler, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i += 50) await Promise.all(Array.from({ length: 50 }, () => one(handle)));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
};

async function main(): Promise<void> {
  const [rootA, rootB, roundsArg, countArg] = process.argv.slice(2);
  if (!rootA || !rootB) {
    console.error('usage: node --import tsx bench/chain.ts <checkout A> <checkout B> [rounds] [requests per round]');
    process.exit(2);
  }
  const rounds = Number(roundsArg ?? 16);
  const count = Number(countArg ?? 20_000);
  const apps = { bare: bareApp(), A: await buildApp(rootA), B: await buildApp(rootB) };
  const times = { bare: [] as number[], A: [] as number[], B: [] as number[] };
  for (const name of ['bare', 'A', 'B'] as const) await round(apps[name], count); // warm-up
  for (let r = 0; r < rounds; r += 1) {
    const order = r % 2 === 0 ? (['A', 'B', 'bare'] as const) : (['B', 'A', 'bare'] as const);
    for (const name of order) times[name].push(await round(apps[name], count));
  }
  const ratios = times.B.map((b, i) => b / times.A[i]!);
  console.log(`bare Koa + router: ${median(times.bare).toFixed(1)} µs/request`);
  console.log(`A ${rootA}: ${median(times.A).toFixed(1)} µs/request`);
  console.log(`B ${rootB}: ${median(times.B).toFixed(1)} µs/request`);
  console.log(`B / A, pairwise median of ${rounds} rounds: ${median(ratios).toFixed(3)}`);
}

await main();
