/**
 * The capacity model of docs/scaling.md, as a pure function: from what one request of each
 * scenario costs (measured by `npm run bench -- --only capacity`, bench/capacity.ts) and a stated
 * mix, what 1k, 10k and 100k requests/s need — instances, PostgreSQL statements and connections
 * through PgBouncer, replicas, Redis operations — and which single-server limit each rate passes.
 * No I/O: test/bench/capacityModel.test.ts checks the arithmetic.
 */

/** What one request of a scenario costs, as measured. */
export interface ScenarioCost {
  /** Server CPU time (user + system, every thread of the process), µs per request. */
  cpuUs: number;
  /** Database statements per request (`begin` and `commit` count). */
  statements: number;
  /** Their summed time, ms per request, as the service waits for them (driver round trip included). */
  statementMs: number;
  /** Redis commands per request (0 without Redis). */
  redisOps: number;
}

/** A scenario's share of the traffic, and whether its statements must run on the primary. */
export interface MixShare {
  scenario: string;
  share: number;
  /** It writes (its statements run in a transaction on the primary); reads may go to a replica. */
  primary: boolean;
}

/**
 * The stated mix: 80% reads (GET by id, the list page, a GraphQL query), 15% authenticated
 * profile reads (GET /api/v1/profile, the "GET /me" of a client), 5% writes (creates, and logins,
 * which write a session and pay bcrypt).
 */
export const MIX: readonly MixShare[] = [
  { scenario: 'product', share: 0.5, primary: false },
  { scenario: 'list', share: 0.2, primary: false },
  { scenario: 'graphql', share: 0.1, primary: false },
  { scenario: 'profile', share: 0.15, primary: false },
  { scenario: 'create', share: 0.04, primary: true },
  { scenario: 'login', share: 0.01, primary: true },
];

/** What the model assumes beyond the measured costs: stated, not measured (docs/scaling.md says why each). */
export interface Assumptions {
  /** Planned CPU use of each instance (one Node process, one core). */
  targetCpu: number;
  /** Each instance's PostgreSQL pool (per server it talks to): fixed at 10 in database.ts. */
  poolPerInstance: number;
  /** Share of the time a PgBouncer server connection is planned to be busy. */
  connectionUtilisation: number;
  /** Statements/s one PostgreSQL server is planned to serve (short indexed statements). */
  statementsPerServer: number;
  /** Connections PostgreSQL keeps beyond PgBouncer's pool (superuser, replication, admin). */
  reservedConnections: number;
  /** Statements/s one PgBouncer process (single-threaded) is planned to pass. */
  statementsPerBouncer: number;
  /** Commands/s one Redis (single-threaded) is planned to serve. */
  opsPerRedis: number;
}

export const ASSUMPTIONS: Assumptions = {
  targetCpu: 0.6,
  poolPerInstance: 10,
  connectionUtilisation: 0.5,
  statementsPerServer: 30_000,
  reservedConnections: 10,
  statementsPerBouncer: 25_000,
  opsPerRedis: 100_000,
};

export const RATES: readonly number[] = [1_000, 10_000, 100_000];

/** What one rate needs. */
export interface CapacityRow {
  rps: number;
  /** Cores busy at the planned CPU use, and the one-core instances that makes. */
  cores: number;
  instances: number;
  statementsPerS: number;
  primaryStatementsPerS: number;
  readStatementsPerS: number;
  /** Replicas for the reads (0: the primary serves them within its budget). */
  replicas: number;
  /** Little's law: statements/s × mean statement time = statements in flight, on the primary and on each replica. */
  busyPrimary: number;
  busyPerReplica: number;
  /** PgBouncer `default_pool_size` for the primary and for each replica, and PostgreSQL `max_connections`. */
  primaryPool: number;
  replicaPool: number;
  primaryMaxConnections: number;
  replicaMaxConnections: number;
  /** Client connections each PgBouncer takes: every instance's pool (`max_client_conn`). */
  clientConnections: number;
  /** PgBouncer processes in front of the primary (`so_reuseport`), each single-threaded. */
  bouncersPrimary: number;
  redisOpsPerS: number;
  redisServers: number;
  /** The single-server limits this rate passes. */
  limits: string[];
}

export interface CapacityPlan {
  /** The mix's mean cost of one request. */
  perRequest: ScenarioCost;
  /** Requests/s of the mix one instance serves at the planned CPU use (on SQLite, the ceiling). */
  perInstanceRps: number;
  /** Per request, the statements and their ms that must run on the primary. */
  primaryStatements: number;
  primaryStatementMs: number;
  rows: CapacityRow[];
}

const up = (x: number): number => Math.ceil(x - 1e-9);

/** The model: `costs` by scenario name (every scenario of `mix` must be there), at each of `rates`. */
export function capacityPlan(
  costs: Readonly<Record<string, ScenarioCost>>,
  engine: 'sqlite' | 'postgresql',
  mix: readonly MixShare[] = MIX,
  assumptions: Assumptions = ASSUMPTIONS,
  rates: readonly number[] = RATES,
): CapacityPlan {
  const total = mix.reduce((n, m) => n + m.share, 0);
  if (Math.abs(total - 1) > 1e-9) throw new Error(`the mix's shares add up to ${total}, not 1`);
  const costOf = (name: string): ScenarioCost => {
    const cost = costs[name];
    if (!cost) throw new Error(`no measured cost for scenario ${name}`);
    return cost;
  };
  const mean = (pick: (c: ScenarioCost) => number, only?: (m: MixShare) => boolean): number =>
    mix.filter(only ?? (() => true)).reduce((n, m) => n + m.share * pick(costOf(m.scenario)), 0);
  const perRequest: ScenarioCost = {
    cpuUs: mean((c) => c.cpuUs),
    statements: mean((c) => c.statements),
    statementMs: mean((c) => c.statementMs),
    redisOps: mean((c) => c.redisOps),
  };
  const primaryStatements = mean(
    (c) => c.statements,
    (m) => m.primary,
  );
  const primaryStatementMs = mean(
    (c) => c.statementMs,
    (m) => m.primary,
  );
  const a = assumptions;
  const rows = rates.map((rps): CapacityRow => {
    const cores = (rps * perRequest.cpuUs) / 1e6 / a.targetCpu;
    const instances = Math.max(1, up(cores));
    const statementsPerS = rps * perRequest.statements;
    const primaryStatementsPerS = rps * primaryStatements;
    const readStatementsPerS = statementsPerS - primaryStatementsPerS;
    const replicas =
      engine === 'sqlite' || statementsPerS <= a.statementsPerServer
        ? 0
        : up(readStatementsPerS / a.statementsPerServer);
    const busyAll = (rps * perRequest.statementMs) / 1000;
    const busyWrites = (rps * primaryStatementMs) / 1000;
    const busyPrimary = replicas === 0 ? busyAll : busyWrites;
    const busyPerReplica = replicas === 0 ? 0 : (busyAll - busyWrites) / replicas;
    const pool = (busy: number): number => Math.max(5, up(busy / a.connectionUtilisation));
    const primaryPool = pool(busyPrimary);
    const replicaPool = replicas === 0 ? 0 : pool(busyPerReplica);
    const onPrimary = replicas === 0 ? statementsPerS : primaryStatementsPerS;
    const redisOpsPerS = rps * perRequest.redisOps;
    const limits: string[] = [];
    if (engine === 'sqlite' && instances > 1)
      limits.push(`SQLite: one instance only, and this rate needs ${instances}: move to PostgreSQL`);
    if (engine === 'postgresql' && onPrimary > a.statementsPerServer)
      limits.push(
        `PostgreSQL primary: ${Math.round(onPrimary)} statements/s past the ${a.statementsPerServer} budget of one server`,
      );
    if (redisOpsPerS > a.opsPerRedis)
      limits.push(`Redis: ${Math.round(redisOpsPerS)} ops/s past the ${a.opsPerRedis} of one server`);
    if (engine === 'postgresql' && onPrimary > a.statementsPerBouncer)
      limits.push(`PgBouncer: ${Math.round(onPrimary)} statements/s past one process's ${a.statementsPerBouncer}`);
    return {
      rps,
      cores: Number(cores.toFixed(2)),
      instances,
      statementsPerS: Math.round(statementsPerS),
      primaryStatementsPerS: Math.round(primaryStatementsPerS),
      readStatementsPerS: Math.round(readStatementsPerS),
      replicas,
      busyPrimary: Number(busyPrimary.toFixed(2)),
      busyPerReplica: Number(busyPerReplica.toFixed(2)),
      primaryPool,
      replicaPool,
      primaryMaxConnections: primaryPool + a.reservedConnections,
      replicaMaxConnections: replicas === 0 ? 0 : replicaPool + a.reservedConnections,
      clientConnections: instances * a.poolPerInstance,
      bouncersPrimary: engine === 'sqlite' ? 0 : Math.max(1, up(onPrimary / a.statementsPerBouncer)),
      redisOpsPerS: Math.round(redisOpsPerS),
      redisServers: redisOpsPerS === 0 ? 0 : Math.max(1, up(redisOpsPerS / a.opsPerRedis)),
      limits,
    };
  });
  const perInstanceRps = Math.floor((assumptions.targetCpu * 1e6) / perRequest.cpuUs);
  return { perRequest, perInstanceRps, primaryStatements, primaryStatementMs, rows };
}

/** The plan as Markdown tables (the bench prints it; docs/scaling.md shows one run's). */
export function planTable(plan: CapacityPlan): string[] {
  const lines = [
    '| req/s | cores | instances | statements/s (primary / reads) | replicas | in flight primary / per replica | PgBouncer pool primary / replica | max_connections primary / replica | PgBouncer clients | PgBouncer processes | Redis ops/s (servers) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of plan.rows)
    lines.push(
      `| ${r.rps} | ${r.cores} | ${r.instances} | ${r.statementsPerS} (${r.primaryStatementsPerS} / ${r.readStatementsPerS}) | ${r.replicas} | ${r.busyPrimary} / ${r.busyPerReplica} | ${r.primaryPool} / ${r.replicaPool} | ${r.primaryMaxConnections} / ${r.replicaMaxConnections} | ${r.clientConnections} | ${r.bouncersPrimary} | ${r.redisOpsPerS} (${r.redisServers}) |`,
    );
  const limits = plan.rows.flatMap((r) => r.limits.map((l) => `- at ${r.rps} req/s: ${l}`));
  return limits.length > 0 ? [...lines, '', 'limits passed:', ...limits] : lines;
}
