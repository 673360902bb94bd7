/**
 * What each layer of an answer costs, by difference (`npm run bench:layers`): the service started
 * in this process on a seeded database (a scratch SQLite file; with SVC_TEST_POSTGRES_URL set,
 * that PostgreSQL database too, its products and the bench admin replaced by the seed), and the
 * authenticated GET of one product driven through its request handler in alternating rounds — as
 * served, then with one layer switched off at a time, everything else as served. A layer's cost is
 * the pairwise median, over the rounds, of (as served − without it), in CPU µs per request
 * (`process.cpuUsage`: the service, its driver and the database when in process, nothing else). The
 * same-work app (bench/sameWork.ts) answers the same request in the same rounds: the floor.
 *
 * No socket: each request is an `IncomingMessage` handed to the handler as Node's server would,
 * 50 at a time, so the parser and the socket (the same for every variant) are left out. The spine's
 * steps are switched off through `createHttpApp`'s layer variant; the route's own layers by putting
 * a route of the same pieces with one left out in front of the service's routes. "As served" is an
 * app built as every variant is, from the options the service was given; two sanity rows, the
 * service's own app and a route of all the pieces in front, should cost ≈ 0 — how far they are from
 * it is the noise of the run.
 *
 *   npm run bench:layers -- [--rounds 8] [--requests 4000] [--engine sqlite|postgres]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type Koa from 'koa';
import {
  createHttpApp,
  type HttpAppOptions,
  type LayerVariant,
  type RouteModule,
} from '../src/adapters/inbound/http/app.js';
import { withETag } from '../src/adapters/inbound/http/conditional.js';
import { success } from '../src/adapters/inbound/http/envelope.js';
import { RestRoutes } from '../src/adapters/inbound/http/operations.js';
import { operationsOf, restPresenter } from '../src/adapters/inbound/http/resourceOperations.js';
import { resourceRoutes } from '../src/adapters/inbound/http/resourceRoutes.js';
import type { RequestState } from '../src/adapters/inbound/http/state.js';
import { idReader } from '../src/adapters/inbound/resources.js';
import { readConfig } from '../src/main/config/readConfig.js';
import { resourceTokens } from '../src/main/modules/resource.js';
import { startService } from '../src/main/wiring/service.js';
import { TOKENS } from '../src/main/wiring/tokens.js';
import { BENCH_ADMIN, BENCH_JWT } from './fixtures.js';
import { benchEnv, logIn, median, one, round, seed, type Handle } from './inProcess.js';
import { startSameWork } from './sameWork.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '8' },
    requests: { type: 'string', default: '4000' },
    engine: { type: 'string', multiple: true },
    // Only these variants (by the start of their name) beside as served: to profile one (`--cpu-prof`).
    variant: { type: 'string', multiple: true },
  },
});
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);

/** A variant: what is switched off, and the handler without it. */
interface Variant {
  readonly layer: string;
  readonly handle: Handle;
}

/** The service's variants: as served, then each layer off in turn. */
function variantsOf(options: HttpAppOptions, served: Koa<RequestState>, products: ProductPieces): Variant[] {
  const app = (variant: LayerVariant, routes: readonly RouteModule[] = options.routes): Handle =>
    createHttpApp({ ...options, routes }, variant).callback();
  const step = (change: LayerVariant['steps']): Handle => app({ steps: change });
  /** The service's routes behind a products GET of the same pieces with `leave` left out. */
  const inFront = (route: RouteModule): Handle => app({}, [route, ...options.routes]);
  return [
    // The reference: built as every variant is, from the options the service was given.
    { layer: 'as served', handle: app({}) },
    { layer: "the service's own app (sanity: ≈ 0)", handle: served.callback() },
    { layer: 'security headers', handle: step((s) => ({ ...s, securityHeaders: [] })) },
    { layer: 'request id', handle: step((s) => ({ ...s, requestId: () => 'bench' })) },
    { layer: 'metrics', handle: step(({ metrics: _, ...s }) => s) },
    { layer: 'request log', handle: step((s) => ({ ...s, log: () => undefined })) },
    { layer: 'CORS', handle: step((s) => ({ ...s, cors: () => Promise.resolve(false) })) },
    { layer: 'load shedding and turn budget', handle: step(({ shedding: _, ...s }) => s) },
    { layer: 'timeout', handle: step((s) => ({ ...s, timeout: async (_ctx, work) => void (await work()) })) },
    { layer: 'body parser', handle: step((s) => ({ ...s, body: () => undefined })) },
    { layer: 'route table (products only)', handle: app({}, [products.routes]) },
    {
      layer: 'route lookup (whole table walked)',
      handle: app({ dispatch: (router) => router.routes() as Koa.Middleware<RequestState> }),
    },
    { layer: 'same pieces in front (sanity: ≈ 0)', handle: inFront(products.get({})) },
    { layer: 'authentication and caller lookup', handle: inFront(products.get({ authentication: false })) },
    { layer: 'RBAC', handle: inFront(products.get({ rbac: false })) },
    { layer: 'presenter', handle: inFront(products.get({ presenter: false })) },
    { layer: 'envelope', handle: inFront(products.get({ envelope: false })) },
    { layer: 'ETag', handle: inFront(products.get({ etag: false })) },
    { layer: 'JSON.stringify', handle: inFront(products.get({ stringify: false })) },
    { layer: 'use case and database read', handle: inFront(products.get({ read: false })) },
  ];
}

/** What the products GET is made of, to rebuild it with a piece left out. */
interface ProductPieces {
  /** The products module's routes alone. */
  routes: RouteModule;
  /** A GET by id of the route's pieces, all on but those given `false`. */
  get(
    off: Partial<Record<'authentication' | 'rbac' | 'read' | 'presenter' | 'envelope' | 'etag' | 'stringify', false>>,
  ): RouteModule;
}

function productPieces(container: Awaited<ReturnType<typeof startService>>['container']): ProductPieces {
  const tokens = resourceTokens('products');
  const inbound = container.get(tokens.Inbound);
  const useCases = container.get(tokens.UseCases);
  const ops = operationsOf(inbound.declaration);
  const present = restPresenter(inbound.declaration);
  const idOf = idReader(inbound.notFound);
  return {
    routes: resourceRoutes(inbound, useCases) as RouteModule,
    get(off) {
      let principal: Awaited<ReturnType<typeof useCases.authenticate.execute>> | undefined;
      const guards = {
        authenticate:
          off.authentication === false
            ? {
                execute: async (input: Parameters<typeof useCases.authenticate.execute>[0]) =>
                  (principal ??= await useCases.authenticate.execute(input)),
              }
            : useCases.authenticate,
        policy:
          off.rbac === false ? { ...useCases.policy, scopeOf: () => Promise.resolve('all' as const) } : useCases.policy,
      };
      let wire: Record<string, unknown> | undefined;
      let row: Awaited<ReturnType<typeof useCases.get.execute>> | undefined;
      let text: string | undefined;
      return (router) =>
        new RestRoutes(router, guards as never).on(ops.get, async (ctx) => {
          const id = idOf(ctx.params.id);
          const found =
            off.read === false ? (row ??= await useCases.get.execute({ id })) : await useCases.get.execute({ id });
          const presented = (entity: typeof found) =>
            off.presenter === false ? (wire ??= present(entity)) : present(entity);
          const data = off.etag === false ? presented(found) : withETag(ctx as never, found, presented);
          if (off.stringify === false) {
            ctx.type = 'application/json';
            ctx.body = text ??= JSON.stringify(success(data));
          } else ctx.body = off.envelope === false ? data : success(data);
        });
    },
  };
}

interface Measured {
  engine: string;
  served_us: number;
  same_work_us: number;
  layers: { layer: string; us: number; share: number }[];
}

/** One engine: seeded, served in this process, every variant in alternating rounds. */
async function measureEngine(engine: string, databaseUrl: string): Promise<Measured> {
  const env = benchEnv(databaseUrl);
  process.stderr.write(`layers: ${engine} — seeding…\n`);
  const [productId] = await seed(env);
  const loaded = readConfig(env);
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const service = await startService(loaded.config);
  const sameWork = await startSameWork({ databaseUrl, ...BENCH_JWT, port: 0 });
  try {
    const token = await logIn(service.url, BENCH_ADMIN);
    const request = { method: 'GET', path: `/api/v1/products/${productId}`, token } as const;
    const served = service.container.get(TOKENS.HttpApp);
    const variants = variantsOf(service.container.get(TOKENS.HttpAppOptions), served, productPieces(service.container));
    const floor: Variant = { layer: 'same-work app', handle: sameWork.server.listeners('request')[0] as Handle };
    const chosen = values.variant;
    const all = [...variants, floor].filter(
      (v, i) => i === 0 || !chosen || chosen.some((name) => v.layer.startsWith(name)),
    );
    // The same answer from the service as served and the same-work app, byte for byte.
    const [ours, theirs] = [await one(variants[0]!.handle, request), await one(floor.handle, request)];
    if (ours.body !== theirs.body) throw new Error(`the answers differ:\n${ours.body}\n${theirs.body}`);
    for (const variant of all) await round(variant.handle, request, REQUESTS / 2); // warm-up
    const times = new Map<Variant, number[]>(all.map((variant) => [variant, []]));
    for (let r = 0; r < ROUNDS; r += 1) {
      // Each round starts one further along the list, so no variant always follows the same one.
      const order = all.map((_, i) => all[(i + r) % all.length]!);
      for (const variant of order) times.get(variant)!.push(await round(variant.handle, request, REQUESTS));
      process.stderr.write(`layers: ${engine} — round ${r + 1}/${ROUNDS}\n`);
    }
    const servedTimes = times.get(variants[0]!)!;
    const servedUs = median(servedTimes);
    return {
      engine,
      served_us: servedUs,
      same_work_us: times.has(floor) ? median(times.get(floor)!) : NaN,
      layers: variants.slice(1).map((variant) => {
        const us = times.has(variant) ? median(times.get(variant)!.map((t, i) => servedTimes[i]! - t)) : NaN;
        return { layer: variant.layer, us, share: us / servedUs };
      }),
    };
  } finally {
    await sameWork.close();
    await service.stop();
  }
}

async function main(): Promise<void> {
  const engines = values.engine?.flatMap((e) => e.split(',')) ?? ['sqlite', 'postgres'];
  const results: Measured[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'portico-layers-'));
  try {
    if (engines.includes('sqlite')) results.push(await measureEngine('SQLite', `sqlite:${join(dir, 'bench.sqlite')}`));
    const postgres = process.env.SVC_TEST_POSTGRES_URL?.trim();
    if (engines.includes('postgres')) {
      if (postgres) results.push(await measureEngine('PostgreSQL', postgres));
      else process.stderr.write('layers: SVC_TEST_POSTGRES_URL is not set — no PostgreSQL column\n');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const fmt = (us: number): string => `${us >= 0 ? '' : '−'}${Math.abs(us).toFixed(1)}`;
  console.log(`\nCPU µs per authenticated GET by id, ${ROUNDS} rounds of ${REQUESTS} requests, pairwise medians\n`);
  console.log(`| layer switched off | ${results.map((r) => `${r.engine} µs (share)`).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---:').join('|')}|`);
  for (const [i, { layer }] of results[0]!.layers.entries()) {
    console.log(
      `| ${layer} | ${results.map((r) => `${fmt(r.layers[i]!.us)} (${(r.layers[i]!.share * 100).toFixed(0)}%)`).join(' | ')} |`,
    );
  }
  console.log(`| **as served** | ${results.map((r) => r.served_us.toFixed(1)).join(' | ')} |`);
  console.log(`| same-work app | ${results.map((r) => r.same_work_us.toFixed(1)).join(' | ')} |`);
  console.log(
    `| as served ÷ same-work | ${results.map((r) => (r.served_us / r.same_work_us).toFixed(2)).join(' | ')} |`,
  );
}

await main();
