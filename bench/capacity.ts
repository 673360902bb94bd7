/**
 * The capacity part of `npm run bench` (`--only capacity`): what one request of each scenario costs
 * the service on this machine — server CPU time, database statements and their time, Redis
 * commands — and from those costs the model of docs/scaling.md (bench/capacityModel.ts) at 1k,
 * 10k and 100k requests/s.
 *
 * On PostgreSQL when SVC_TEST_POSTGRES_URL is set (its products and the bench admin replaced by the
 * seed), else on a scratch SQLite file; with Redis when SVC_TEST_REDIS_URL is set (its
 * `INFO commandstats` read before and after each scenario: the bench's Redis must serve nobody else).
 * The service runs in a child process of its own (bench/capacityServer.ts), twice, reseeded before each:
 *   1. tracing off, as deployed: `--capacity-requests` requests per scenario (a fiftieth for login,
 *      which pays bcrypt) from 50 connections (the table's: the service busy, as an instance under
 *      load is), after as many to warm up (and as many health probes first, which warm the chain
 *      every scenario shares: the JIT takes thousands of requests to settle); the process's CPU
 *      time (`process.cpuUsage`, checked against the kernel's count in /proc/<pid>/stat) and the
 *      Redis commands over them, divided by the requests;
 *   2. tracing on, counting the query spans: statements and their time per request, from one
 *      connection, so that a statement's time is its round trip and not a wait behind other requests.
 * With SVC_TEST_POSTGRES_REPLICA_URL set too, both passes run once more for the product GET by id on
 * a service given that replica (`database.replica_urls`): what a replica and read-your-writes add.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import type { Spent } from './capacityServer.js';
import { capacityPlan, MIX, ASSUMPTIONS, planTable, type CapacityPlan, type ScenarioCost } from './capacityModel.js';
import { BENCH_ADMIN } from './fixtures.js';
import { json, PROFILE, REPLICA, SCENARIOS, type Scenario } from './scenarios.js';

const say = (line: string): void => void process.stderr.write(`${line}\n`);

/** The scenarios measured, in order: the bench's, with the profile read; creates last (they grow the table). */
const MEASURED: readonly Scenario[] = ['health', 'product', 'list', 'graphql', 'profile', 'login', 'create'].map(
  (name) => [...SCENARIOS, PROFILE].find((s) => s.name === name)!,
);

/** The CPU time the kernel has counted for process `pid` (/proc/<pid>/stat utime + stime, 10 ms ticks), µs. */
export function procCpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export interface CapacityRow extends ScenarioCost {
  scenario: string;
  label: string;
  requests: number;
  errors: number;
  /** The same CPU time as the kernel counts it (/proc/<pid>/stat utime + stime, 10 ms ticks): the check. */
  cpuUsProc: number;
}

export interface CapacityReport {
  database: 'sqlite' | 'postgresql';
  redis: boolean;
  requests_per_scenario: number;
  rows: CapacityRow[];
  plan: CapacityPlan;
  mix: typeof MIX;
  assumptions: typeof ASSUMPTIONS;
}

/** A child's first line matching `pattern` on stdout. */
function lineOf(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) resolve(match[0]);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
}

async function seed(env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/seed.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return (JSON.parse(await lineOf(child, /\{"productIds".*\}/)) as { productIds: string[] }).productIds[0]!;
}

/** The service in bench/capacityServer.ts, and how to ask it what it has spent. */
async function startServer(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/capacityServer.ts'], {
    env,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = <T>(key: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`bench/capacityServer.ts exited with ${code}`));
      const onMessage = (message: Record<string, unknown>) => {
        if (!(key in message)) return;
        child.off('message', onMessage).off('exit', onExit);
        resolve(message[key] as T);
      };
      child.on('message', onMessage).once('exit', onExit);
    });
  const url = await next<string>('ready');
  return {
    url,
    /** The CPU time the kernel has counted for the process (user + system), µs. */
    procCpuUs: (): number => procCpuUs(child.pid!),
    spent: (): Promise<Spent> => {
      const answer = next<Spent>('spent');
      child.send('spent');
      return answer;
    },
    stop: (): Promise<void> =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

/** Redis commands served so far, the `INFO` this counter sends left out. */
async function redisCalls(redis: Redis | undefined): Promise<number> {
  if (!redis) return 0;
  const info = await redis.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    if (match[1] !== 'info') calls += Number(match[2]);
  return calls;
}

async function drive(url: string, request: ReturnType<Scenario['request']>, amount: number, connections: number) {
  const result = await autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections: Math.min(connections, amount),
    amount,
  });
  return { requests: result.requests.total, errors: result.errors + result.timeouts + result.non2xx };
}

/** Logs the bench admin in on `url`: its access token. */
async function token(url: string): Promise<string> {
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify(BENCH_ADMIN),
  });
  return ((await login.json()) as { data: { access_token: string } }).data.access_token;
}

/** What one request of a scenario spent in a pass, and how many were driven. */
type Measured = ScenarioCost & { requests: number; errors: number; cpuUsProc: number };

/** One pass over the scenarios on a freshly seeded service: what each request spent. */
async function pass(
  env: NodeJS.ProcessEnv,
  requests: number,
  connections: number,
  redis: Redis | undefined,
  name: string,
  scenarios: readonly Scenario[] = MEASURED,
): Promise<Map<string, Measured>> {
  const productId = await seed(env);
  const server = await startServer(env);
  const measured = new Map<string, Measured>();
  try {
    const ctx = { token: await token(server.url), productId };
    // The chain every scenario shares is compiled on the first requests: warm it before the first row.
    await drive(server.url, MEASURED[0]!.request(ctx), requests, connections);
    for (const scenario of scenarios) {
      const request = scenario.request(ctx);
      const amount = scenario.name === 'login' ? Math.max(1, Math.round(requests / 50)) : requests;
      say(`bench: capacity (${name}) — ${scenario.label}: ${amount} requests after ${amount} to warm up…`);
      await drive(server.url, request, amount, connections);
      const [before, procBefore, callsBefore] = [await server.spent(), server.procCpuUs(), await redisCalls(redis)];
      const driven = await drive(server.url, request, amount, connections);
      const [after, procAfter, callsAfter] = [await server.spent(), server.procCpuUs(), await redisCalls(redis)];
      const n = driven.requests;
      measured.set(scenario.name, {
        requests: n,
        errors: driven.errors,
        cpuUs: (after.cpuUs - before.cpuUs) / n,
        cpuUsProc: (procAfter - procBefore) / n,
        statements: (after.statements - before.statements) / n,
        statementMs: (after.statementUs - before.statementUs) / 1000 / n,
        redisOps: (callsAfter - callsBefore) / n,
      });
    }
  } finally {
    await server.stop();
  }
  return measured;
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

/** The CPU pass's connections: the table's, so the service is busy as an instance under load is. */
const CPU_CONNECTIONS = 50;

/**
 * Measures, prints the inputs and the plan as tables, and writes them to
 * bench/results/capacity-<database>.json with `machine`.
 */
export async function runCapacity(
  dir: string,
  baseEnv: NodeJS.ProcessEnv,
  requests: number,
  machine: Record<string, unknown>,
): Promise<CapacityReport> {
  const postgresUrl = process.env.SVC_TEST_POSTGRES_URL?.trim();
  const redisUrl = process.env.SVC_TEST_REDIS_URL?.trim();
  const database = postgresUrl ? 'postgresql' : 'sqlite';
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    SVC_DATABASE_URL: postgresUrl || `sqlite:${join(dir, 'capacity.sqlite')}`,
    SVC_METRICS_ENABLED: 'false',
    ...(redisUrl ? { SVC_REDIS_URL: redisUrl } : {}),
  };
  say(
    `bench: capacity on ${database}${redisUrl ? ' with Redis (SVC_TEST_REDIS_URL)' : ', no Redis (SVC_TEST_REDIS_URL unset)'}`,
  );
  const redis = redisUrl ? new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 }) : undefined;
  try {
    // Tracing on; the endpoint is never called (the spans go to the counter).
    const tracing = { SVC_TRACING_OTLP_ENDPOINT: 'http://127.0.0.1:9/v1/traces', SVC_TRACING_SAMPLE_RATIO: '1' };
    const cpu = await pass(env, requests, CPU_CONNECTIONS, redis, 'CPU, Redis');
    const traced = await pass({ ...env, ...tracing }, requests, 1, undefined, 'statements');
    const measured: { scenario: Scenario; c: Measured; t: Measured }[] = MEASURED.map((scenario) => ({
      scenario,
      c: cpu.get(scenario.name)!,
      t: traced.get(scenario.name)!,
    }));
    const replicaUrl = process.env.SVC_TEST_POSTGRES_REPLICA_URL?.trim();
    if (postgresUrl && replicaUrl) {
      // The product GET by id again, its reads on the replica: what a replica and read-your-writes add.
      const scenario = { ...REPLICA, label: `${REPLICA.label}, on a replica (not in the mix)` };
      const withReplica = { ...env, SVC_DATABASE_REPLICA_URLS: replicaUrl };
      const c = (await pass(withReplica, requests, CPU_CONNECTIONS, redis, 'replica: CPU, Redis', [scenario])).get(
        REPLICA.name,
      )!;
      const t = (
        await pass({ ...withReplica, ...tracing }, requests, 1, undefined, 'replica: statements', [scenario])
      ).get(REPLICA.name)!;
      measured.push({ scenario, c, t });
    } else if (postgresUrl) say('bench: capacity — SVC_TEST_POSTGRES_REPLICA_URL is not set: no replica row');
    const rows: CapacityRow[] = measured.map(({ scenario: s, c, t }) => {
      return {
        scenario: s.name,
        label: s.label,
        requests: c.requests,
        errors: c.errors + t.errors,
        cpuUs: Math.round(c.cpuUs),
        cpuUsProc: Math.round(c.cpuUsProc),
        statements: round(t.statements, 2),
        statementMs: round(t.statementMs, 3),
        redisOps: round(c.redisOps, 2),
      };
    });
    const plan = capacityPlan(Object.fromEntries(rows.map((r) => [r.scenario, r])), database);
    const report: CapacityReport = {
      database,
      redis: redis !== undefined,
      requests_per_scenario: requests,
      rows,
      plan,
      mix: MIX,
      assumptions: ASSUMPTIONS,
    };
    console.log('');
    console.log(`capacity inputs (${database}${redis ? ', Redis' : ''}), per request:`);
    console.log('| scenario | requests | errors | CPU µs | CPU µs (/proc) | statements | statement ms | Redis ops |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rows)
      console.log(
        `| ${r.label} | ${r.requests} | ${r.errors} | ${r.cpuUs} | ${r.cpuUsProc} | ${r.statements} | ${r.statementMs} | ${r.redisOps} |`,
      );
    const p = plan.perRequest;
    console.log('');
    console.log(
      `mix: ${MIX.map((m) => `${Math.round(m.share * 100)}% ${m.scenario}`).join(', ')} → per request ${Math.round(p.cpuUs)} µs CPU, ${round(p.statements, 2)} statements (${round(plan.primaryStatements, 2)} on the primary) taking ${round(p.statementMs, 3)} ms, ${round(p.redisOps, 2)} Redis ops; one instance serves ${plan.perInstanceRps} req/s of it at ${ASSUMPTIONS.targetCpu * 100}% CPU`,
    );
    console.log('');
    for (const line of planTable(plan)) console.log(line);
    console.log('');
    console.log(`machine: ${String(machine.cpus)} × ${String(machine.model)}, Node ${String(machine.node)}`);
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/capacity-${database}.json`;
    writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), machine, capacity: report }, null, 2)}\n`);
    say(`bench: wrote ${file}`);
    return report;
  } finally {
    redis?.disconnect();
  }
}
