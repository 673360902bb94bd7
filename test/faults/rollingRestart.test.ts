import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Api, dataOf, login } from '../support/api.js';
import { PgCluster, postgresBin, waitFor } from '../support/faults.js';
import { freePort } from '../support/ports.js';
import { createUserByCli, runEntry, startEntry } from '../support/process.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';
import { HAPROXY, haproxyConfig, startHaproxy } from '../support/haproxy.js';

const ADMIN = { email: 'rolling@example.com', password: 'rolling restart password' };

async function stopGracefully(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * A rolling restart behind a balancer that health-checks readiness loses no request: every
 * instance is stopped with SIGTERM (readiness down, `Connection: close` for
 * `server.shutdown_delay`, then a drain) and started again, in turn, under a steady load well below
 * the fleet's capacity; no client sees a 5xx or a reset (docs/faults-and-overload.md).
 */
describe('faults: a rolling restart of three instances behind HAProxy', function () {
  this.timeout(180_000);

  it('under steady load: 0 answers other than 200, 0 connection errors', async function () {
    if (!postgresBin() || !existsSync(HAPROXY)) {
      if (process.env.CI === 'true') throw new Error('CI must install PostgreSQL and haproxy for the fault suite');
      console.log('      (skipped: needs the PostgreSQL server binaries and haproxy)');
      this.skip();
    }
    const cluster = await PgCluster.create();
    const dir = mkdtempSync(join(tmpdir(), 'portico-rolling-'));
    const children = new Map<number, ChildProcess>();
    let balancer: ChildProcess | undefined;
    try {
      const env = {
        SVC_DATABASE_URL: cluster.url,
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_METRICS_ENABLED: 'false',
        SVC_LOG_LEVEL: 'silent',
        SVC_SERVER_HOST: '127.0.0.1',
        SVC_SERVER_SHUTDOWN_DELAY: '1s',
        // Every request comes through the balancer: one peer address for all clients.
        SVC_SERVER_MAX_CONNECTIONS_PER_IP: '10000',
      };
      await createUserByCli(
        { ...env, SVC_DATABASE_URL: cluster.url },
        {
          email: ADMIN.email,
          password: ADMIN.password,
          firstName: 'R',
          lastName: 'R',
          role: 'admin',
        },
      );
      await runEntry('src/main/cli.ts', ['migrate'], env);

      const ports = [await freePort(), await freePort(), await freePort()];
      const start = async (port: number): Promise<void> => {
        const { child } = await startEntry(
          'src/main/server.ts',
          { ...env, SVC_SERVER_PORT: String(port) },
          /Portico listening on http:\/\/127\.0\.0\.1:\d+ /,
        );
        children.set(port, child);
        await waitFor(
          async () => (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.status === 200,
          10_000,
        );
      };
      for (const port of ports) await start(port);

      const front = await freePort();
      balancer = startHaproxy(dir, haproxyConfig(front, ports));
      const base = `http://127.0.0.1:${front}`;
      await waitFor(async () => (await fetch(`${base}/health/ready`).catch(() => undefined))?.status === 200, 10_000);

      const api = new Api(base);
      const token = (await login(api, ADMIN.email, ADMIN.password)).access_token;
      const { id } = dataOf<{ id: string }>(
        await api.post('/api/v1/products', { token, json: { ...PRODUCT_BODY, name: 'rolling', price: 1 } }),
        201,
      );

      // A steady load from a process of its own, at about half the three instances' capacity on this
      // machine, for as long as the restarts take.
      const driver = spawn(
        process.execPath,
        ['--import', 'tsx', 'test/support/loadDriver.ts', `${base}/api/v1/products/${id}`, '64', '24', '3000'],
        { env: { ...process.env, LOAD_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      // A few clients in this process too, keeping what a refusal said (which layer refused).
      const refusals: string[] = [];
      let sampling = true;
      const sampler = async (): Promise<void> => {
        while (sampling) {
          const res = await fetch(`${base}/api/v1/products/${id}`, { headers: { authorization: `Bearer ${token}` } });
          const text = await res.text();
          if (res.status !== 200) refusals.push(`${res.status} ${text.slice(0, 120)}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      const sampled = Array.from({ length: 4 }, sampler);
      let output = '';
      driver.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const done = new Promise((resolve) => driver.once('exit', resolve));
      await new Promise((r) => setTimeout(r, 2000));
      for (const port of ports) {
        await stopGracefully(children.get(port)!);
        children.delete(port);
        await start(port);
        // The balancer sees it ready again (rise 2 × 200 ms) and sends it its share before the next one goes.
        await new Promise((r) => setTimeout(r, 1500));
      }
      await done;
      sampling = false;
      await Promise.all(sampled);
      const figures = JSON.parse(output.trim()) as {
        by_status: Record<string, number>;
        errors: number;
        timeouts: number;
      };
      const statuses = new Map(Object.entries(figures.by_status).map(([status, count]) => [Number(status), count]));
      const ok = statuses.get(200) ?? 0;
      expect(ok, 'requests answered 200').to.be.greaterThan(20_000);
      expect(
        Object.fromEntries([...statuses].filter(([status]) => status !== 200)),
        `answers other than 200 (some, as the in-process clients saw them: ${refusals.slice(0, 4).join(' | ')})`,
      ).to.deep.equal({});
      expect(refusals, 'refusals seen by the in-process clients').to.deep.equal([]);
      expect({ errors: figures.errors, timeouts: figures.timeouts }, 'connection errors (resets)').to.deep.equal({
        errors: 0,
        timeouts: 0,
      });
    } finally {
      balancer?.kill('SIGKILL');
      for (const child of children.values()) child.kill('SIGKILL');
      await cluster.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
