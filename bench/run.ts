/**
 * `npm run bench`: the service beside a bare Koa app, driven by autocannon with the same
 * connections, duration and pipelining, in alternating rounds; prints one table (requests/s,
 * p50, p99, errors, ratio to bare Koa) and writes it to bench/results/latest.json.
 *
 * GET by id, the list, GraphQL and create are also driven, in the same rounds, on the same-work
 * app (bench/sameWork.ts: the same answers, hand-written, on the same drivers and the same database
 * file), and the table shows Portico's ratio to it: what the architecture costs. With
 * SVC_TEST_POSTGRES_URL set, those four run again with Portico and the same-work app both on that
 * PostgreSQL database (its products and the bench admin are replaced by the seed): the rows
 * marked (PostgreSQL). The scenarios are described once, in bench/scenarios.ts.
 *
 * Two more GETs by id beside the product's (`--scenario cached,replica`): the bench's cached twin of
 * products (bench/cachedProducts.ts, served by bench/benchServer.ts) on the SQLite file, from the
 * shared cache in memory and, with SVC_TEST_REDIS_URL set, memory + Redis; and the product on a
 * PostgreSQL service given SVC_TEST_POSTGRES_REPLICA_URL as `database.replica_urls`, without and
 * with Redis, the replica's and the primary's scans of the products table printed beside it.
 *
 *   npm run bench -- [--duration 5] [--connections 50] [--rounds 3] [--pipelining 1]
 *                    [--scenario health,product,list,create,graphql,login,cached,replica]
 *                    [--overload-connections 1000] [--overload-duration 20] [--only table|overload|jobs|capacity]
 *                    [--skip-cost] [--jobs 2000] [--jobs-duration 1] [--capacity-requests 10000]
 *
 * Then the cost of metrics (README: Metrics and Tracing): authenticated GET by id on the service as
 * configured and on a second one with metrics off, in alternating rounds (target ≤ 5%). Both send the
 * security headers: they are part of every answer, with no switch to turn them off.
 *
 * Then the overload scenario (ADR 15): 1,000 connections on the 100-row list for 20 s,
 * driven from a child process, while `/health/live` is probed on a new connection every 200 ms.
 * It reports the shed answers (503), the longest wait, and the probes answered within 1 s.
 *
 * And the background-jobs rows (bench/jobs.ts, in a child process; `--only jobs` runs them alone
 * and writes bench/results/jobs.json, keeping the last full run in latest.json): no-op jobs
 * completed per second by 4 runners (4 engine instances, each with the default concurrency of 4)
 * after `--jobs` were enqueued, and a product write with and without a job enqueued in its
 * transaction (`--connections` callers, `--jobs-duration` s × `--rounds` alternating rounds), on a
 * scratch SQLite file and, with SVC_TEST_POSTGRES_URL set, on that database (its jobs deleted
 * first; the rows it adds deleted after). The write is measured at the ports, not over HTTP
 * (bench/jobs.ts says why and how).
 *
 * Last, the capacity part (bench/capacity.ts; `--only capacity` runs it alone): CPU time,
 * database statements and Redis commands per request of each scenario, on services of its own, and
 * the capacity model of docs/scaling.md computed from them (bench/results/capacity-<database>.json).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import bcrypt from 'bcrypt';
import { procCpuUs, runCapacity } from './capacity.js';
import { BENCH_ADMIN, BENCH_JWT as JWT } from './fixtures.js';
import { partsOf } from './parts.js';
import pg from 'pg';
import { CACHED, json, REPLICA, SCENARIOS, type Scenario } from './scenarios.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    pipelining: { type: 'string', default: '1' },
    scenario: { type: 'string', multiple: true },
    'overload-connections': { type: 'string', default: '1000' },
    'overload-duration': { type: 'string', default: '20' },
    only: { type: 'string' },
    'skip-cost': { type: 'boolean', default: false },
    jobs: { type: 'string', default: '2000' },
    'jobs-duration': { type: 'string', default: '1' },
    'capacity-requests': { type: 'string', default: '10000' },
  },
});
const PARTS_RUN = partsOf(values.only);
const RUN_TABLE = PARTS_RUN.has('table');
const RUN_OVERLOAD = PARTS_RUN.has('overload');
const RUN_JOBS = PARTS_RUN.has('jobs');
const RUN_CAPACITY = PARTS_RUN.has('capacity');
const OVERLOAD_CONNECTIONS = Number(values['overload-connections']);
const OVERLOAD_DURATION = Number(values['overload-duration']);
const OVERLOAD_PATH = '/api/v1/products?per_page=100';
/** ADR 15 targets under 1,000 connections. */
const MAX_WAIT_TARGET_MS = 5000;
const LIVE_TARGET_MS = 1000;
const LIVE_TARGET_SHARE = 0.95;
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const PIPELINING = Number(values.pipelining);
const BCRYPT_COST = 10;
/** README: Metrics and Tracing: metrics cost at most this share of authenticated GET-by-id throughput. */
const COST_TARGET = 0.05;
const METRICS_OFF = { SVC_METRICS_ENABLED: 'false' };

const say = (line: string): void => void process.stderr.write(`${line}\n`);
/** The token key both Portico and the same-work app are given. */

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** The serving process's CPU time per answered request (/proc), µs; undefined when its process is not known. */
  cpuUs?: number;
}

/** The process serving each URL the table drives (Portico and the same-work app), for its CPU time. */
const servedBy = new Map<string, number>();

async function drive(url: string, request: ReturnType<Scenario['request']>): Promise<Figures> {
  const pid = servedBy.get(url);
  const cpuBefore = pid === undefined ? 0 : procCpuUs(pid);
  const result = await autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections: CONNECTIONS,
    duration: DURATION,
    pipelining: PIPELINING,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ...(pid === undefined || result.requests.total === 0
      ? {}
      : { cpuUs: (procCpuUs(pid) - cpuBefore) / result.requests.total }),
  };
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no "${pattern}" within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(pattern);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready:\n${out}`)));
  });
}

function peakRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Starts the service on `env` and waits until `/health/ready` answers 200; its URL and the ms it took. */
async function startService(
  env: NodeJS.ProcessEnv,
  children: ChildProcess[],
): Promise<{ child: ChildProcess; url: string; probesUrl: string; startupMs: number }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['dist/src/main/server.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines = await waitForLine(
    child,
    /listening on (http:\/\/[^\s]+)[\s\S]*health probes at (http:\/\/[^\s]+)\/health\/live/,
  );
  const [url, probesUrl] = [lines[1]!, lines[2]!];
  for (;;) {
    const ready = await fetch(`${url}/health/ready`).catch(() => undefined);
    if (ready?.status === 200) {
      servedBy.set(url, child.pid!);
      return { child, url, probesUrl, startupMs: Number(process.hrtime.bigint() - started) / 1e6 };
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Starts bench/benchServer.ts (the service with the bench's cached twin) on `env`, once ready. */
async function startBenchServer(
  env: NodeJS.ProcessEnv,
  children: ChildProcess[],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/benchServer.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const url = (await waitForLine(child, /listening on (http:\/\/[^\s]+)/))[1]!;
  for (;;) {
    const ready = await fetch(`${url}/health/ready`).catch(() => undefined);
    if (ready?.status === 200) {
      servedBy.set(url, child.pid!);
      return { child, url };
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Scans of the products table (sequential + index) the server at `url` has counted. */
async function productScans(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ scans: string }>(
      "select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as scans from pg_stat_user_tables where relname = 'products'",
    );
    return Number(result.rows[0]?.scans ?? 0);
  } finally {
    await client.end();
  }
}

/** Starts bench/sameWork.ts on `databaseUrl`. */
async function startSameWork(
  databaseUrl: string,
  children: ChildProcess[],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/sameWork.ts', databaseUrl, JWT.secret, JWT.issuer, '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const url = `http://127.0.0.1:${(await waitForLine(child, /ready (\d+)/))[1]}`;
  servedBy.set(url, child.pid!);
  return { child, url };
}

/**
 * Whether the same-work app answers `request` with Portico's status, content type, ETag and body
 * (the test in test/bench holds this for every case; this catches a drift at bench time).
 */
async function answersAlike(
  serviceUrl: string,
  sameUrl: string,
  request: ReturnType<Scenario['request']>,
): Promise<boolean> {
  const answers = await Promise.all(
    [serviceUrl, sameUrl].map(async (url) => {
      const response = await fetch(`${url}${request.path}`, {
        method: request.method,
        headers: request.headers ?? {},
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      const { headers } = response;
      return `${response.status} ${headers.get('content-type')} ${headers.get('etag')} ${await response.text()}`;
    }),
  );
  return answers[0] === answers[1];
}

interface OverloadFigures {
  answers: number;
  rps: number;
  by_status: Record<string, number>;
  errors: number;
  timeouts: number;
  latency_ms: { p50: number; p99: number; max: number };
}

/** One `/health/live` on a new connection: ms until the answer ended (Infinity when it failed). */
function probeLive(url: string): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = get(`${url}/health/live`, { agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : Number.POSITIVE_INFINITY));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(Number.POSITIVE_INFINITY));
  });
}

const percentile = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/**
 * The overload scenario: the driver in a child process, the liveness probes from here, on the
 * management listener as the Kubernetes probes are (deploy/k8s).
 */
async function overload(serviceUrl: string, probesUrl: string, token: string): Promise<Record<string, unknown>> {
  say(
    `bench: overload — ${OVERLOAD_CONNECTIONS} connections on GET ${OVERLOAD_PATH} for ${OVERLOAD_DURATION} s, /health/live probed every 200 ms…`,
  );
  const driver = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/overload.ts',
      `${serviceUrl}${OVERLOAD_PATH}`,
      String(OVERLOAD_CONNECTIONS),
      String(OVERLOAD_DURATION),
    ],
    {
      env: { ...process.env, BENCH_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const figures = waitForLine(driver, /\{"answers".*\}/, (OVERLOAD_DURATION + 120) * 1000);
  const probes: Promise<number>[] = [];
  // Give autocannon a moment to open its connections, then probe until it is done.
  await new Promise((r) => setTimeout(r, 500));
  let driving = true;
  void figures.finally(() => (driving = false)).catch(() => undefined);
  while (driving) {
    probes.push(probeLive(probesUrl));
    await new Promise((r) => setTimeout(r, 200));
  }
  const result = JSON.parse((await figures)[0]) as OverloadFigures;
  const live = await Promise.all(probes);
  const answered = live.filter((ms) => Number.isFinite(ms));
  const withinTarget = live.filter((ms) => ms <= LIVE_TARGET_MS).length / Math.max(1, live.length);
  return {
    scenario: `GET ${OVERLOAD_PATH} (auth)`,
    connections: OVERLOAD_CONNECTIONS,
    duration_s: OVERLOAD_DURATION,
    answers: result.answers,
    rps: Math.round(result.rps),
    ok_200: result.by_status['200'] ?? 0,
    shed_503: result.by_status['503'] ?? 0,
    other_status: Object.entries(result.by_status)
      .filter(([status]) => status !== '200' && status !== '503')
      .reduce((n, [, count]) => n + count, 0),
    errors: result.errors,
    timeouts: result.timeouts,
    latency_ms: result.latency_ms,
    live_probes: live.length,
    live_failed: live.length - answered.length,
    live_within_1s: Number(withinTarget.toFixed(3)),
    live_p95_ms: Math.round(percentile(live, 95)),
    live_max_ms: Math.round(Math.max(...live)),
    meets_targets:
      result.latency_ms.max <= MAX_WAIT_TARGET_MS && result.timeouts === 0 && withinTarget >= LIVE_TARGET_SHARE,
  };
}

/** A row of bench/jobs.ts: jobs completed per second, or a write with or without an enqueue. */
interface JobsRow {
  scenario: string;
  database: 'sqlite' | 'postgresql';
  jobs_per_s?: number;
  seconds?: number;
  completed_per_runner?: number[];
  enqueue_per_s?: number;
  rps?: number;
  p50_ms?: number;
  p99_ms?: number;
  errors: number;
  ratio_to_without_enqueue?: number;
}
interface JobsReport {
  settings: { jobs: number; runners: number; write_concurrency: number; write_duration_s: number; rounds: number };
  rows: JobsRow[];
}

/** bench/jobs.ts in a child process, on a scratch SQLite file in `dir` (and SVC_TEST_POSTGRES_URL when set). */
function runJobs(dir: string, env: NodeJS.ProcessEnv, children: ChildProcess[]): Promise<JobsReport> {
  say('bench: background jobs (bench/jobs.ts)…');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/jobs.ts',
        join(dir, 'jobs'),
        '--jobs',
        String(Number(values.jobs)),
        '--duration',
        String(Number(values['jobs-duration'])),
        '--rounds',
        String(ROUNDS),
        '--concurrency',
        String(CONNECTIONS),
      ],
      { env, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('close', (code) => {
      const line = /\{"jobs".*\}/.exec(out);
      if (code === 0 && line) resolve((JSON.parse(line[0]) as { jobs: JobsReport }).jobs);
      else reject(new Error(`bench/jobs.ts exited with ${code}:\n${out}`));
    });
  });
}

/** The jobs rows as a table, and what they were measured with. */
function printJobs(jobs: JobsReport): void {
  const cell = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
  console.log('| jobs scenario | per s | p50 ms | p99 ms | errors | ratio to without enqueue |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of jobs.rows)
    console.log(
      `| ${r.scenario} | ${r.jobs_per_s ?? r.rps} | ${cell(r.p50_ms)} | ${cell(r.p99_ms)} | ${r.errors} | ${cell(r.ratio_to_without_enqueue)} |`,
    );
  console.log('');
  const { jobs: count, write_concurrency, write_duration_s, rounds } = jobs.settings;
  const runs = jobs.rows
    .filter((r) => r.jobs_per_s !== undefined)
    .map(
      (r) =>
        `${r.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ${count} enqueued at ${r.enqueue_per_s}/s (10 callers, no transaction), run in ${r.seconds} s (per runner: ${r.completed_per_runner?.join('/')})`,
    );
  console.log(`jobs: ${runs.join(' · ')}`);
  console.log(
    `writes: ${write_concurrency} callers at once, ${write_duration_s} s × ${rounds} alternating rounds (medians); p50/p99 include the wait for a connection`,
  );
  console.log('');
}

async function main(): Promise<void> {
  const known = [...SCENARIOS, CACHED, REPLICA].map((s) => s.name);
  const chosen = values.scenario?.flatMap((s) => s.split(',')).map((s) => s.trim()) ?? known;
  const unknown = chosen.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${known.join(', ')}`);
  const scenarios = SCENARIOS.filter((s) => chosen.includes(s.name));
  const redisUrl = process.env.SVC_TEST_REDIS_URL?.trim();

  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const env = {
    ...process.env,
    SVC_DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
    SVC_RATE_LIMIT_ENABLED: 'false',
    SVC_LOG_LEVEL: 'warn',
    SVC_API_MODE: 'both',
    SVC_SERVER_HOST: '127.0.0.1',
    SVC_SERVER_PORT: '0',
    SVC_AUTH_BCRYPT_COST: String(BCRYPT_COST),
    // One machine stands in for many clients: the per-IP socket bound would refuse most of the
    // overload scenario's 1,000 connections. Every other server.* key keeps its default.
    SVC_SERVER_MAX_CONNECTIONS_PER_IP: '100000',
    // The bench stops the service with SIGTERM; no balancer to wait for.
    SVC_SERVER_SHUTDOWN_DELAY: '0s',
    SVC_METRICS_HOST: '127.0.0.1',
    SVC_METRICS_PORT: '0',
    // Given to the same-work app too, so one token works on both.
    SVC_JWT_SECRET: JWT.secret,
    SVC_JWT_ISSUER: JWT.issuer,
  };
  const children: ChildProcess[] = [];
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? 'unknown',
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
  try {
    if (values.only === 'jobs') {
      // The jobs rows alone: no service, no seed; latest.json keeps the last full run.
      const jobs = await runJobs(dir, env, children);
      console.log('');
      printJobs(jobs);
      console.log(`machine: ${machine.cpus} × ${machine.model}, ${machine.memory_gib} GiB, Node ${machine.node}`);
      mkdirSync('bench/results', { recursive: true });
      writeFileSync(
        'bench/results/jobs.json',
        `${JSON.stringify({ date: new Date().toISOString(), machine, jobs }, null, 2)}\n`,
      );
      say('bench: wrote bench/results/jobs.json');
      return;
    }
    if (values.only === 'capacity') {
      // The capacity part alone: services of its own; latest.json keeps the last full run.
      await runCapacity(dir, env, Number(values['capacity-requests']), machine);
      return;
    }
    say('bench: timing bcrypt on an idle machine (the login ceiling)…');
    const threads = Math.min(Number(process.env.UV_THREADPOOL_SIZE ?? 4), availableParallelism());
    const hash = await bcrypt.hash(BENCH_ADMIN.password, BCRYPT_COST);
    const samples: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const t0 = process.hrtime.bigint();
      await bcrypt.compare(BENCH_ADMIN.password, hash);
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const hashMs = median(samples);
    say('bench: seeding a SQLite file with an admin and 1,000 products…');
    const seed = spawn(process.execPath, ['--import', 'tsx', 'bench/seed.ts'], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const { productIds } = JSON.parse((await waitForLine(seed, /\{"productIds".*\}/))[0]) as { productIds: string[] };

    say('bench: starting the service (dist/src/main/server.js)…');
    const { child: service, url: serviceUrl, probesUrl, startupMs } = await startService(env, children);
    say(`bench: service ready in ${startupMs.toFixed(0)} ms at ${serviceUrl}`);

    let bareUrl = '';
    let sameUrl = '';
    if (RUN_TABLE) {
      const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/bareKoa.ts', '0'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(bare);
      bareUrl = `http://127.0.0.1:${(await waitForLine(bare, /ready (\d+)/))[1]}`;
      if (scenarios.some((s) => s.sameWork)) sameUrl = (await startSameWork(env.SVC_DATABASE_URL, children)).url;
    }

    const logIn = async (url: string): Promise<string> => {
      const login = await fetch(`${url}/api/v1/auth/login`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(BENCH_ADMIN),
      });
      return ((await login.json()) as { data: { access_token: string } }).data.access_token;
    };
    const token = await logIn(serviceUrl);
    const context = { token, productId: productIds[0]! };

    /** Each scenario in alternating rounds: bare Koa, Portico, and the same-work app where it has one. */
    const measure = async (
      on: readonly Scenario[],
      portico: string,
      same: string,
      ctx: typeof context,
      engine: 'sqlite' | 'postgresql',
    ) => {
      const measured: Record<string, unknown>[] = [];
      const suffix = engine === 'postgresql' ? ' (PostgreSQL)' : '';
      const named = (s: Scenario) => (s.label.includes('(PostgreSQL') ? s.label : `${s.label}${suffix}`);
      for (const scenario of on) {
        const request = scenario.request(ctx);
        const withSame = scenario.sameWork === true && same !== '';
        const alike = withSame && !scenario.creates ? await answersAlike(portico, same, request) : undefined;
        if (alike === false)
          say(
            `bench: WARNING — the same-work app does not answer ${scenario.label} as Portico does (npm test test/bench/sameWork.test.ts)`,
          );
        const service: Figures[] = [];
        const baseline: Figures[] = [];
        const sameWork: Figures[] = [];
        for (let round = 1; round <= ROUNDS; round += 1) {
          say(`bench: ${named(scenario)} — round ${round}/${ROUNDS}: bare Koa…`);
          baseline.push(await drive(bareUrl, { method: 'GET', path: '/' }));
          say(`bench: ${named(scenario)} — round ${round}/${ROUNDS}: Portico…`);
          service.push(await drive(portico, request));
          if (withSame) {
            say(`bench: ${named(scenario)} — round ${round}/${ROUNDS}: same-work app…`);
            sameWork.push(await drive(same, request));
          }
        }
        const rps = median(service.map((f) => f.rps));
        const bareRps = median(baseline.map((f) => f.rps));
        const sameRps = withSame ? median(sameWork.map((f) => f.rps)) : undefined;
        measured.push({
          scenario: named(scenario),
          database: engine,
          rps: Math.round(rps),
          p50_ms: median(service.map((f) => f.p50)),
          p99_ms: median(service.map((f) => f.p99)),
          errors: service.reduce((n, f) => n + f.errors + f.non2xx, 0),
          bare_koa_rps: Math.round(bareRps),
          ratio: Number((rps / bareRps).toFixed(3)),
          same_work_rps: sameRps === undefined ? null : Math.round(sameRps),
          same_work_ratio: sameRps === undefined ? null : Number((rps / sameRps).toFixed(3)),
          ...(service.every((f) => f.cpuUs !== undefined)
            ? { cpu_us: Number(median(service.map((f) => f.cpuUs!)).toFixed(1)) }
            : {}),
          ...(withSame
            ? {
                same_work_p50_ms: median(sameWork.map((f) => f.p50)),
                ...(sameWork.every((f) => f.cpuUs !== undefined)
                  ? { same_work_cpu_us: Number(median(sameWork.map((f) => f.cpuUs!)).toFixed(1)) }
                  : {}),
                same_work_errors: sameWork.reduce((n, f) => n + f.errors + f.non2xx, 0),
              }
            : {}),
          ...(alike === false ? { same_work_answers_differ: true } : {}),
        });
      }
      return measured;
    };

    /**
     * The product GET by id on PostgreSQL with `database.replica_urls` set to the replica (seeded
     * afresh, so it runs alone on the PostgreSQL rows' data), without and with Redis; each row says
     * how many scans of the products table the replica and the primary made while it was driven.
     */
    const replicaRows = async (primary: string, replica: string): Promise<Record<string, unknown>[]> => {
      const pgEnv = { ...env, SVC_DATABASE_URL: primary, SVC_DATABASE_REPLICA_URLS: replica };
      say('bench: replica — seeding SVC_TEST_POSTGRES_URL (its products and the bench admin replaced)…');
      const replicaSeed = spawn(process.execPath, ['--import', 'tsx', 'bench/seed.ts'], {
        env: pgEnv,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const ids = (JSON.parse((await waitForLine(replicaSeed, /\{"productIds".*\}/))[0]) as { productIds: string[] })
        .productIds;
      const setups: [string, NodeJS.ProcessEnv][] = [['replica', pgEnv]];
      if (redisUrl) setups.push(['replica, Redis', { ...pgEnv, SVC_REDIS_URL: redisUrl }]);
      else say('bench: SVC_TEST_REDIS_URL is not set — the replica row without Redis only');
      const measured: Record<string, unknown>[] = [];
      for (const [where, replicaEnv] of setups) {
        const service = await startService(replicaEnv, children);
        say(`bench: ${where} — service ready in ${service.startupMs.toFixed(0)} ms at ${service.url}`);
        const ctx = { token: await logIn(service.url), productId: ids[0]! };
        // The login wrote a session: wait until the replica has replayed it, so every read may go there.
        await new Promise((r) => setTimeout(r, 1000));
        const before = await Promise.all([productScans(replica), productScans(primary)]);
        const [row] = await measure(
          [{ ...REPLICA, label: `${REPLICA.label} (PostgreSQL, ${where})` }],
          service.url,
          '',
          ctx,
          'postgresql',
        );
        // An idle backend publishes its pending counters within 10 s (PostgreSQL's idle stats interval).
        await new Promise((r) => setTimeout(r, 11_000));
        const after = await Promise.all([productScans(replica), productScans(primary)]);
        const scans = { replica: after[0] - before[0], primary: after[1] - before[1] };
        say(
          `bench: ${where} — products scans while driven: ${scans.replica} on the replica, ${scans.primary} on the primary`,
        );
        measured.push({ ...row!, scenario: `${REPLICA.label} (PostgreSQL, ${where})`, product_scans: scans });
        await stop(service.child);
      }
      return measured;
    };

    const rows: Record<string, unknown>[] = RUN_TABLE
      ? await measure(scenarios, serviceUrl, sameUrl, context, 'sqlite')
      : [];

    // The cached twin's GET by id, on the SQLite file the seed filled: in memory, then memory + Redis.
    if (RUN_TABLE && chosen.includes('cached')) {
      const caches: [string, NodeJS.ProcessEnv][] = [['memory', env]];
      if (redisUrl) caches.push(['memory + Redis', { ...env, SVC_REDIS_URL: redisUrl }]);
      else say('bench: SVC_TEST_REDIS_URL is not set — the cached row in memory only');
      for (const [where, cacheEnv] of caches) {
        const cached = await startBenchServer(cacheEnv, children);
        rows.push(
          ...(await measure([{ ...CACHED, label: `${CACHED.label} (${where})` }], cached.url, '', context, 'sqlite')),
        );
        await stop(cached.child);
      }
    }

    // The same-work scenarios again, with Portico and the same-work app both on PostgreSQL.
    const postgresUrl = process.env.SVC_TEST_POSTGRES_URL?.trim();
    const onPostgres = scenarios.filter((s) => s.sameWork);
    if (RUN_TABLE && postgresUrl && onPostgres.length > 0) {
      const pgEnv = { ...env, SVC_DATABASE_URL: postgresUrl };
      say(
        'bench: PostgreSQL — seeding SVC_TEST_POSTGRES_URL (its products and the bench admin replaced) with 1,000 products…',
      );
      const pgSeed = spawn(process.execPath, ['--import', 'tsx', 'bench/seed.ts'], {
        env: pgEnv,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const pgIds = (JSON.parse((await waitForLine(pgSeed, /\{"productIds".*\}/))[0]) as { productIds: string[] })
        .productIds;
      const pgService = await startService(pgEnv, children);
      say(`bench: PostgreSQL — service ready in ${pgService.startupMs.toFixed(0)} ms at ${pgService.url}`);
      const pgSame = await startSameWork(postgresUrl, children);
      rows.push(
        ...(await measure(
          onPostgres,
          pgService.url,
          pgSame.url,
          { token: await logIn(pgService.url), productId: pgIds[0]! },
          'postgresql',
        )),
      );
      await Promise.all([stop(pgService.child), stop(pgSame.child)]);
    } else if (RUN_TABLE && onPostgres.length > 0) {
      say('bench: SVC_TEST_POSTGRES_URL is not set — no PostgreSQL rows');
    }

    // The product GET by id on a service with a streaming replica: without, then with Redis.
    const replicaUrl = process.env.SVC_TEST_POSTGRES_REPLICA_URL?.trim();
    if (RUN_TABLE && chosen.includes('replica')) {
      if (!postgresUrl || !replicaUrl)
        say('bench: SVC_TEST_POSTGRES_URL and SVC_TEST_POSTGRES_REPLICA_URL are not both set — no replica row');
      else rows.push(...(await replicaRows(postgresUrl, replicaUrl)));
    }

    const peakRss = peakRssBytes(service.pid!);

    // The jobs rows: after the PostgreSQL rows (whose service is stopped), before the cost and overload runs.
    const jobsReport = RUN_JOBS ? await runJobs(dir, env, children) : undefined;

    // Metrics: the same request on a second service with metrics off, alternating.
    let costRow: Record<string, unknown> | undefined;
    if (RUN_TABLE && !values['skip-cost']) {
      // Two fresh services, started and warmed alike: the table's service has served every scenario
      // by now (a bigger heap, other JIT state), which alone made it measure 20% slower than a new one.
      // The one with metrics off starts first (a process started first was seen to run slower, so any
      // bias is against the cost's favour).
      const plain = spawn(process.execPath, ['dist/src/main/server.js'], {
        env: { ...env, ...METRICS_OFF },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(plain);
      const plainUrl = (await waitForLine(plain, /listening on (http:\/\/[^\s]+)/))[1]!;
      const observed = spawn(process.execPath, ['dist/src/main/server.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(observed);
      const observedUrl = (await waitForLine(observed, /listening on (http:\/\/[^\s]+)/))[1]!;
      const request = SCENARIOS.find((s) => s.name === 'product')!.request(context);
      say('bench: metrics cost — warming both services up…');
      await drive(plainUrl, request);
      await drive(observedUrl, request);
      const on: Figures[] = [];
      const off: Figures[] = [];
      // Which of the two goes first swaps every round, so neither is always driven right after the other.
      for (let round = 1; round <= ROUNDS; round += 1) {
        const order = round % 2 === 1 ? (['on', 'off'] as const) : (['off', 'on'] as const);
        for (const which of order) {
          say(`bench: metrics cost — round ${round}/${ROUNDS}: ${which === 'on' ? 'on (default)' : 'off'}…`);
          if (which === 'on') on.push(await drive(observedUrl, request));
          else off.push(await drive(plainUrl, request));
        }
      }
      const onRps = median(on.map((f) => f.rps));
      const offRps = median(off.map((f) => f.rps));
      const cost = 1 - onRps / offRps;
      costRow = {
        scenario: 'GET /api/v1/products/{id} (auth)',
        rps_on: Math.round(onRps),
        rps_off: Math.round(offRps),
        rounds_on: on.map((f) => Math.round(f.rps)),
        rounds_off: off.map((f) => Math.round(f.rps)),
        p50_ms_on: median(on.map((f) => f.p50)),
        p50_ms_off: median(off.map((f) => f.p50)),
        errors: [...on, ...off].reduce((n, f) => n + f.errors + f.non2xx, 0),
        cost_percent: Number((cost * 100).toFixed(1)),
        within_target: cost <= COST_TARGET,
      };
      await stop(plain);
      await stop(observed);
    }
    const overloadRow = RUN_OVERLOAD ? await overload(serviceUrl, probesUrl, token) : undefined;
    // The capacity part starts services of its own: the table's service is idle by now.
    const capacityReport = RUN_CAPACITY
      ? await runCapacity(dir, env, Number(values['capacity-requests']), machine)
      : undefined;
    const ceiling = (threads * 1000) / hashMs;
    const loginRow = rows.find((r) => r.scenario === 'POST /api/v1/auth/login');

    const report = {
      date: new Date().toISOString(),
      machine,
      settings: {
        duration_s: DURATION,
        connections: CONNECTIONS,
        pipelining: PIPELINING,
        rounds: ROUNDS,
        bcrypt_cost: BCRYPT_COST,
      },
      startup_to_ready_ms: Math.round(startupMs),
      peak_rss_mib: Math.round(peakRss / 2 ** 20),
      bcrypt: {
        ms_per_hash: Number(hashMs.toFixed(1)),
        hash_threads: threads,
        ceiling_rps: Math.round(ceiling),
        login_share_of_ceiling: loginRow ? Number(((loginRow.rps as number) / ceiling).toFixed(3)) : null,
      },
      scenarios: rows,
      ...(jobsReport ? { jobs: jobsReport } : {}),
      ...(costRow ? { metrics_cost: costRow } : {}),
      ...(capacityReport ? { capacity: capacityReport } : {}),
      ...(overloadRow
        ? { overload: { ...overloadRow, peak_rss_mib: Math.round(peakRssBytes(service.pid!) / 2 ** 20) } }
        : {}),
    };

    console.log('');
    if (rows.length > 0) {
      console.log(
        '| scenario | req/s | p50 ms | p99 ms | errors | bare Koa req/s | ratio | same-work req/s | same-work ratio | server CPU µs/req (same-work) | CPU ÷ same-work |',
      );
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
      const cell = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
      const cpuCell = (r: Record<string, unknown>): string =>
        r.cpu_us === undefined
          ? ''
          : `${r.cpu_us}${r.same_work_cpu_us === undefined ? '' : ` (${r.same_work_cpu_us})`}`;
      const cpuRatio = (r: Record<string, unknown>): string =>
        r.cpu_us === undefined || r.same_work_cpu_us === undefined
          ? ''
          : ((r.cpu_us as number) / (r.same_work_cpu_us as number)).toFixed(2);
      for (const r of rows) {
        console.log(
          `| ${r.scenario} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.errors} | ${r.bare_koa_rps} | ${r.ratio} | ${cell(r.same_work_rps)} | ${cell(r.same_work_ratio)} | ${cpuCell(r)} | ${cpuRatio(r)} |`,
        );
      }
      console.log('');
      for (const r of rows.filter((r) => r.product_scans !== undefined)) {
        const scans = r.product_scans as { replica: number; primary: number };
        console.log(
          `${r.scenario}: scans of products while driven — ${scans.replica} on the replica, ${scans.primary} on the primary (pg_stat_user_tables)`,
        );
      }
      console.log('');
    }
    if (jobsReport) printJobs(jobsReport);
    if (costRow) {
      const c = costRow;
      console.log(
        `metrics on ${c.scenario}: ${c.rps_on} req/s on, ${c.rps_off} req/s off (medians of ${ROUNDS} alternating rounds) — cost ${c.cost_percent}% (target ≤ ${COST_TARGET * 100}%)${c.within_target ? '' : ' — TARGET MISSED'}`,
      );
      console.log('');
    }
    if (overloadRow) {
      const o = overloadRow as Record<string, number | string | boolean> & {
        latency_ms: OverloadFigures['latency_ms'];
      };
      console.log(
        `overload: ${o.connections} connections × ${o.duration_s} s on ${o.scenario}: ${o.answers} answers (${o.rps}/s) — ${o.ok_200} × 200, ${o.shed_503} × 503 OVERLOADED (shed), ${o.other_status} other, ${o.errors} errors, ${o.timeouts} timeouts`,
      );
      console.log(
        `overload: wait p50 ${o.latency_ms.p50} ms · p99 ${o.latency_ms.p99} ms · longest ${o.latency_ms.max} ms (target ≤ ${MAX_WAIT_TARGET_MS} ms)`,
      );
      console.log(
        `overload: /health/live on a new connection, ${o.live_probes} probes: ${(Number(o.live_within_1s) * 100).toFixed(1)}% within 1 s (target ≥ ${LIVE_TARGET_SHARE * 100}%), p95 ${o.live_p95_ms} ms, max ${o.live_max_ms} ms, ${o.live_failed} failed — ${o.meets_targets ? 'targets met' : 'TARGETS MISSED'}`,
      );
      console.log('');
    }
    console.log(
      `start-up to ready: ${report.startup_to_ready_ms} ms · peak RSS: ${report.peak_rss_mib} MiB · bcrypt cost ${BCRYPT_COST}: ${report.bcrypt.ms_per_hash} ms/hash × ${threads} threads → ceiling ${report.bcrypt.ceiling_rps} logins/s${report.bcrypt.login_share_of_ceiling !== null ? `, login at ${(report.bcrypt.login_share_of_ceiling * 100).toFixed(0)}% of it` : ''}`,
    );
    console.log(
      `machine: ${report.machine.cpus} × ${report.machine.model}, ${report.machine.memory_gib} GiB, Node ${report.machine.node}; ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} alternating rounds, pipelining ${PIPELINING}`,
    );
    mkdirSync('bench/results', { recursive: true });
    // `--only overload` keeps the last full table in latest.json.
    const file = RUN_TABLE ? 'bench/results/latest.json' : 'bench/results/overload.json';
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    say(`bench: wrote ${file}`);
  } finally {
    await Promise.all(children.map(stop));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
