/**
 * One change measured (`npm run bench:ab -- <checkout A> <checkout B>`): the service of two builds
 * (each a checkout with `npm run build` done) started in this process on one seeded SQLite file
 * (and, with SVC_TEST_POSTGRES_URL set, on that database), each scenario driven through both
 * request handlers in alternating rounds — A first in even rounds, B first in odd ones, so each
 * start order is half the rounds. Prints the CPU µs per request of each and the pairwise median
 * of B ÷ A, per start order and overall. No socket (bench/inProcess.ts): what differs is the
 * service's own work.
 *
 *   npm run bench:ab -- <checkout A> <checkout B> [--rounds 8] [--requests 4000]
 *                       [--scenario product,list,create,graphql] [--engine sqlite,postgres]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type Koa from 'koa';
import { BENCH_ADMIN } from './fixtures.js';
import { benchEnv, logIn, median, one, round, seed, type BenchRequest, type Handle } from './inProcess.js';
import { SCENARIOS } from './scenarios.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '8' },
    requests: { type: 'string', default: '4000' },
    scenario: { type: 'string', multiple: true },
    engine: { type: 'string', multiple: true },
  },
});
const [rootA, rootB] = positionals;
if (!rootA || !rootB) {
  console.error('usage: npm run bench:ab -- <checkout A> <checkout B> [--rounds 8] [--requests 4000]');
  process.exit(2);
}
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const CHOSEN = values.scenario?.flatMap((s) => s.split(',')) ?? ['product', 'list', 'create', 'graphql'];

interface Running {
  url: string;
  handle: Handle;
  stop(): Promise<void>;
}

/** A build's service, started in this process from its `dist` with `env`'s settings. */
async function startBuild(root: string, env: NodeJS.ProcessEnv): Promise<Running> {
  const at = (path: string) => pathToFileURL(resolve(root, 'dist/src', path)).href;
  const { readConfig } = (await import(at('main/config/readConfig.js'))) as {
    readConfig: (
      env: NodeJS.ProcessEnv,
      cwd: string,
    ) => { ok: true; config: unknown } | { ok: false; errors: string[] };
  };
  const { startService } = (await import(at('main/wiring/service.js'))) as {
    startService: (
      config: unknown,
    ) => Promise<{ url: string; container: { get(token: symbol): Koa }; stop(): Promise<void> }>;
  };
  const loaded = readConfig({ ...env, SVC_DATABASE_MIGRATE_ON_START: 'false' }, resolve(root));
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const service = await startService(loaded.config);
  // The HTTP app (its token, TOKENS.HttpApp, is the same symbol in every build), not the server's
  // listener, which keeps per-connection state a socketless request does not have.
  const handle = service.container.get(Symbol.for('portico.HttpApp')).callback() as Handle;
  return { url: service.url, handle, stop: () => service.stop() };
}

async function measure(engine: string, databaseUrl: string): Promise<void> {
  const env = benchEnv(databaseUrl);
  process.stderr.write(`ab: ${engine} — seeding…\n`);
  const [productId] = await seed(env);
  const a = await startBuild(rootA!, env);
  const b = await startBuild(rootB!, env);
  try {
    const token = await logIn(a.url, BENCH_ADMIN);
    for (const scenario of SCENARIOS.filter((s) => CHOSEN.includes(s.name))) {
      const { method, path, body } = scenario.request({ token, productId: productId! });
      const request: BenchRequest = { method, path, token, ...(body === undefined ? {} : { body: () => body }) };
      if (!scenario.creates) {
        const [fromA, fromB] = [await one(a.handle, request), await one(b.handle, request)];
        if (fromA.body !== fromB.body) process.stderr.write(`ab: ${scenario.name}: the two builds' bodies differ\n`);
      }
      for (const build of [a, b]) await round(build.handle, request, REQUESTS / 2); // warm-up
      const times = { A: [] as number[], B: [] as number[] };
      for (let r = 0; r < ROUNDS; r += 1) {
        const order = r % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
        for (const name of order) times[name].push(await round(name === 'A' ? a.handle : b.handle, request, REQUESTS));
      }
      const ratios = times.B.map((t, i) => t / times.A[i]!);
      const byOrder = (first: 0 | 1) => median(ratios.filter((_, i) => i % 2 === first));
      console.log(
        `| ${engine} | ${scenario.label} | ${median(times.A).toFixed(1)} | ${median(times.B).toFixed(1)} | ` +
          `${byOrder(0).toFixed(3)} | ${byOrder(1).toFixed(3)} | **${median(ratios).toFixed(3)}** |`,
      );
    }
  } finally {
    await b.stop();
    await a.stop();
  }
}

const engines = values.engine?.flatMap((e) => e.split(',')) ?? ['sqlite', 'postgres'];
const dir = mkdtempSync(join(tmpdir(), 'portico-ab-'));
console.log(`A ${rootA}, B ${rootB}: CPU µs per request in process, ${ROUNDS} rounds of ${REQUESTS}, medians\n`);
console.log('| engine | scenario | A µs | B µs | B ÷ A, A first | B ÷ A, B first | B ÷ A |');
console.log('|---|---|---:|---:|---:|---:|---:|');
try {
  if (engines.includes('sqlite')) await measure('SQLite', `sqlite:${join(dir, 'bench.sqlite')}`);
  const postgres = process.env.SVC_TEST_POSTGRES_URL?.trim();
  if (engines.includes('postgres') && postgres) await measure('PostgreSQL', postgres);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
