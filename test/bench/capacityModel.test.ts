import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { ASSUMPTIONS, capacityPlan, MIX, planTable, type ScenarioCost } from '../../bench/capacityModel.js';
import { partsOf, PARTS } from '../../bench/parts.js';

const cost = (cpuUs: number, statements: number, statementMs: number, redisOps = 0): ScenarioCost => ({
  cpuUs,
  statements,
  statementMs,
  redisOps,
});

/** Round figures, so the expected numbers can be worked out by hand. */
const COSTS: Record<string, ScenarioCost> = {
  product: cost(600, 1, 0.1),
  list: cost(600, 1, 0.1),
  graphql: cost(600, 1, 0.1),
  profile: cost(600, 1, 0.1),
  create: cost(600, 4, 1, 2),
  login: cost(600, 4, 1, 2),
};

describe('the capacity model (bench/capacityModel.ts)', () => {
  it('weights each scenario by its share of the mix', () => {
    const plan = capacityPlan(COSTS, 'postgresql');
    // 95% reads of 1 statement, 5% writes of 4: 0.95 + 0.2 = 1.15 statements per request.
    expect(plan.perRequest.statements).to.be.closeTo(1.15, 1e-9);
    expect(plan.primaryStatements).to.be.closeTo(0.2, 1e-9);
    expect(plan.perRequest.statementMs).to.be.closeTo(0.095 + 0.05, 1e-9);
    expect(plan.perRequest.redisOps).to.be.closeTo(0.1, 1e-9);
    // 0.6 × 1e6 µs / 600 µs.
    expect(plan.perInstanceRps).to.equal(1000);
  });

  it('gives instances at the target CPU, Little’s law connections, replicas past one server’s statements', () => {
    const [k1, k10, k100] = capacityPlan(COSTS, 'postgresql').rows;
    // 1,000 req/s × 600 µs = 0.6 core, at 60%: 1 core.
    expect(k1).to.include({ rps: 1000, cores: 1, instances: 1, statementsPerS: 1150, replicas: 0 });
    // 1,000 × 0.145 ms = 0.145 statements in flight; the pool's floor is 5.
    expect(k1).to.include({
      busyPrimary: 0.15,
      primaryPool: 5,
      primaryMaxConnections: 5 + ASSUMPTIONS.reservedConnections,
    });
    expect(k1).to.include({ clientConnections: 10, bouncersPrimary: 1, redisOpsPerS: 100, redisServers: 1 });
    expect(k1!.limits).to.deep.equal([]);
    // 11,500 statements/s fit one server: no replica yet.
    expect(k10).to.include({ instances: 10, statementsPerS: 11_500, replicas: 0, clientConnections: 100 });
    // 115,000 statements/s: the 95,000 reads on ceil(95,000 / 30,000) = 4 replicas, 20,000 writes on the primary.
    expect(k100).to.include({ instances: 100, statementsPerS: 115_000, primaryStatementsPerS: 20_000, replicas: 4 });
    // In flight: 100,000 × 0.05 ms = 5 on the primary (pool 10 at 50%), 100,000 × 0.095 / 4 = 2.375 per replica (pool 5).
    expect(k100).to.include({ busyPrimary: 5, busyPerReplica: 2.38, primaryPool: 10, replicaPool: 5 });
    expect(k100).to.include({ redisOpsPerS: 10_000, redisServers: 1, bouncersPrimary: 1 });
    expect(k100!.limits).to.deep.equal([]);
  });

  it('names the limits a rate passes: one primary, one PgBouncer, one Redis, SQLite’s one instance', () => {
    const heavy = { ...COSTS, create: cost(600, 40, 1, 200), login: cost(600, 40, 1, 200) };
    const limits = capacityPlan(heavy, 'postgresql').rows[2]!.limits.join('\n');
    expect(limits).to.match(/PostgreSQL primary: 200000 statements\/s/);
    expect(limits).to.match(/PgBouncer: 200000 statements\/s/);
    expect(limits).to.match(/Redis: 1000000 ops\/s/);
    const sqlite = capacityPlan(COSTS, 'sqlite');
    expect(sqlite.rows[0]!.limits).to.deep.equal([]);
    expect(sqlite.rows[1]!.limits).to.deep.equal([
      'SQLite: one instance only, and this rate needs 10: move to PostgreSQL',
    ]);
    expect(sqlite.rows.map((r) => r.replicas)).to.deep.equal([0, 0, 0]);
  });

  it('refuses a mix that does not add up, or a scenario without a cost', () => {
    expect(() => capacityPlan(COSTS, 'postgresql', [{ scenario: 'product', share: 0.5, primary: false }])).to.throw(
      /add up to 0.5/,
    );
    const { login: _login, ...withoutLogin } = COSTS;
    expect(() => capacityPlan(withoutLogin, 'postgresql')).to.throw(/no measured cost for scenario login/);
  });

  it('prints one table row per rate', () => {
    const lines = planTable(capacityPlan(COSTS, 'postgresql'));
    expect(lines.filter((l) => /^\| \d/.test(l))).to.have.length(3);
    expect(MIX.reduce((n, m) => n + m.share, 0)).to.be.closeTo(1, 1e-9);
  });
});

describe('npm run bench -- --only', () => {
  it('takes the capacity part alone, and every part without it', () => {
    expect([...partsOf('capacity')]).to.deep.equal(['capacity']);
    expect([...partsOf(undefined)]).to.deep.equal([...PARTS]);
    expect(() => partsOf('capacities')).to.throw('--only takes table, overload, jobs or capacity');
  });

  it('bench/run.ts refuses an unknown part before it starts anything, naming capacity', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--only', 'nothing'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).to.not.equal(0);
    expect(run.stderr).to.include('--only takes table, overload, jobs or capacity');
  });
});
