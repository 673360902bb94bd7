import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Api, dataOf, login } from '../support/api.js';
import { createUserByCli, startEntry } from '../support/process.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';
import { probeLive } from '../support/probes.js';

const ADMIN = { email: 'burst-admin@example.com', password: 'burst admin password' };

/** One GET on its own keep-alive connection; the status, or 0 when the connection failed. */
function getOn(agent: Agent, url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The overload driver's figures (bench/overload.ts): autocannon in a process of its own. */
interface DriverFigures {
  answers: number;
  by_status: Record<string, number>;
  errors: number;
  timeouts: number;
  latency_ms: { p50: number; p99: number; max: number };
}

function drive(url: string, token: string, connections: number, seconds: number): Promise<DriverFigures> {
  return new Promise((resolve, reject) => {
    const driver = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/overload.ts', url, String(connections), String(seconds)],
      { env: { ...process.env, BENCH_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    driver.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    driver.once('error', reject);
    driver.once('close', (code) => {
      const line = /\{"answers".*\}/.exec(out);
      if (code === 0 && line) resolve(JSON.parse(line[0]) as DriverFigures);
      else reject(new Error(`the overload driver exited with ${code}: ${out}`));
    });
  });
}

/**
 * `connections` clients connect at once to an idle service and each sends requests back to back
 * on its keep-alive connection for `ms` (a client's pool warming up, or a balancer adding this
 * instance); every status answered.
 */
async function burst(url: string, token: string, connections: number, ms = 1500): Promise<number[]> {
  const agents = Array.from({ length: connections }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  const statuses: number[] = [];
  const until = performance.now() + ms;
  const client = async (agent: Agent): Promise<void> => {
    do statuses.push(await getOn(agent, url, token));
    while (performance.now() < until);
  };
  try {
    await Promise.all(agents.map(client));
    return statuses;
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

describe('no false refusals: bursts of connections on an idle service are served (docs/adr/0015-load-shedding.md)', function () {
  this.timeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-bursts-'));
  const database = `sqlite:${join(dir, 'bursts.sqlite')}`;
  let child: ChildProcess | undefined;
  let base = '';
  let token = '';
  const ids: string[] = [];

  let managementPort = 0;

  before(async () => {
    managementPort = await freePort();
    await createUserByCli(
      { SVC_DATABASE_URL: database, SVC_AUTH_BCRYPT_COST: '4' },
      {
        email: ADMIN.email,
        password: ADMIN.password,
        firstName: 'B',
        lastName: 'A',
        role: 'admin',
      },
    );
    const started = await startEntry(
      'src/main/server.ts',
      {
        SVC_SERVER_PORT: '0',
        SVC_SERVER_HOST: '127.0.0.1',
        SVC_DATABASE_URL: database,
        SVC_LOG_LEVEL: 'silent',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_AUTH_BCRYPT_COST: '4',
        // The probes of the 1,000-connection test go to the management listener, as Kubernetes' do.
        SVC_METRICS_HOST: '127.0.0.1',
        SVC_METRICS_PORT: String(managementPort),
        // One test machine stands in for many clients (the default bound is per client IP).
        SVC_SERVER_MAX_CONNECTIONS_PER_IP: '10000',
      },
      /Portico listening on (http:\/\/127\.0\.0\.1:\d+) /,
    );
    child = started.child;
    base = started.match[1]!;
    const api = new Api(base);
    token = (await login(api, ADMIN.email, ADMIN.password)).access_token;
    for (let i = 0; i < 100; i += 1) {
      const created = await api.post('/api/v1/products', {
        token,
        json: { ...PRODUCT_BODY, name: `burst ${i}`, price: i + 1 },
      });
      ids.push(dataOf<{ id: string }>(created, 201).id);
    }
  });
  after(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  for (const connections of [32, 64, 128, 256, 512]) {
    it(`${connections} connections at once, GET by id: every request 200 for 1.5 s, none refused`, async () => {
      const statuses = await burst(`${base}/api/v1/products/${ids[connections % ids.length]}`, token, connections);
      expect(
        statuses.filter((status) => status !== 200),
        'answers other than 200',
      ).to.deep.equal([]);
    });
  }

  for (const connections of [64, 200]) {
    it(`${connections} connections at once on the 100-row list: every request 200 for 1.5 s, none refused`, async () => {
      const statuses = await burst(`${base}/api/v1/products?per_page=100`, token, connections);
      expect(
        statuses.filter((status) => status !== 200),
        'answers other than 200',
      ).to.deep.equal([]);
    });
  }

  it('1,000 connections at once on the 100-row list: no request waits more than 5 s, and /health/live on a new connection answers within 1 s', async () => {
    const probes: Promise<number>[] = [];
    let driving = true;
    const figures = drive(`${base}/api/v1/products?per_page=100`, token, 1000, 8).finally(() => (driving = false));
    await new Promise((r) => setTimeout(r, 500));
    while (driving) {
      probes.push(probeLive(`http://127.0.0.1:${managementPort}`));
      await new Promise((r) => setTimeout(r, 200));
    }
    const result = await figures;
    const live = await Promise.all(probes);
    expect(result.errors, 'connection errors').to.equal(0);
    expect(result.timeouts, 'requests never answered').to.equal(0);
    expect(Object.keys(result.by_status).sort(), 'statuses answered').to.satisfy((statuses: string[]) =>
      statuses.every((status) => status === '200' || status === '503'),
    );
    expect(result.by_status['200'] ?? 0, 'requests served').to.be.above(1000);
    // Every connection's first request waits for Node to accept it, one connection per turn of the
    // loop: with long turns, the last of 1,000 waited 20 s.
    expect(result.latency_ms.max, 'the longest wait (ms)').to.be.at.most(5000);
    expect(live.length, 'probes sent').to.be.above(20);
    expect(live.filter((ms) => ms > 1000).map(Math.round), 'probes slower than 1 s (ms)').to.deep.equal([]);
  });
});
