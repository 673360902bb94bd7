import { execFile, type ChildProcess } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import pg from 'pg';
import { Api, dataOf, login, register } from '../support/api.js';
import { externalService } from '../support/env.js';
import { waitFor } from '../support/faults.js';
import { PGBOUNCER } from '../support/pgbouncer.js';
import { freePort } from '../support/ports.js';
import { createUserByCli, startEntry } from '../support/process.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';
import { HAPROXY, haproxyConfig, startHaproxy } from '../support/haproxy.js';

const run = promisify(execFile);

/** The `value` column of a statement's one row, as text. */
async function valueOf(url: string, sql: string): Promise<string> {
  const [row] = await queryOnce<{ value: unknown }>(url, sql);
  return String(row?.value);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ProductJson {
  id: string;
  name: string;
  price: number;
}

/** An HTTP answer as the load's clients keep it. */
interface Answer {
  status: number;
  text: string;
  etag: string | null;
}

/** A client of the load: its user's access token and its own connections, from its own address. */
interface Client {
  token: string;
  agent: Agent;
}

/** A product as one answer showed it, with its version (the answer's `ETag`). */
interface Written extends ProductJson {
  etag: string | null;
}

/** One statement on a fresh connection (the replica is stopped and started under the test: no pool outlives it). */
async function queryOnce<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Three instances behind HAProxy, on the primary and its streaming replica, both through PgBouncer
 * in transaction mode, with Redis: a mixed load of reads and writes from several clients, each
 * writing client reading back what it has just written. While the replica's replay is paused (so
 * it serves data older than those writes) and then while the replica is stopped, no request fails
 * and no writing client reads anything older than its own last write; once the replica is started
 * again, reads return to it.
 */
describe('faults: three instances on a primary and a replica through PgBouncer', function () {
  this.timeout(120_000);

  it('a mixed load, the replica paused then stopped and started: 0 failed requests, 0 stale reads for the writers', async function () {
    const primary = externalService('SVC_TEST_POSTGRES_URL');
    const replica = externalService('SVC_TEST_POSTGRES_REPLICA_URL');
    const pooled = externalService('SVC_TEST_PGBOUNCER_URL');
    const pooledReplica = externalService('SVC_TEST_PGBOUNCER_REPLICA_URL');
    const replicaCtl = externalService('SVC_TEST_REPLICA_CTL');
    const redis = externalService('SVC_TEST_REDIS_URL');
    if (!primary || !replica || !pooled || !pooledReplica || !replicaCtl || !redis) {
      console.log(
        '      (skipped: needs the servers of .ci/services.sh: SVC_TEST_POSTGRES_URL, SVC_TEST_POSTGRES_REPLICA_URL, ' +
          'SVC_TEST_PGBOUNCER_URL, SVC_TEST_PGBOUNCER_REPLICA_URL, SVC_TEST_REPLICA_CTL, SVC_TEST_REDIS_URL)',
      );
      this.skip();
    }
    if (!existsSync(HAPROXY) || !existsSync(PGBOUNCER)) {
      if (process.env.CI === 'true') throw new Error('CI must install haproxy and pgbouncer for the fault suite');
      console.log('      (skipped: needs haproxy and pgbouncer)');
      this.skip();
    }
    const replicaCommand = (action: 'replica-stop' | 'replica-start') =>
      run('bash', ['-c', `${replicaCtl} ${action}`], { timeout: 90_000 });
    /** Waits until the replica has replayed everything the primary has written so far. */
    const caughtUp = async (): Promise<void> => {
      const lsn = await valueOf(primary, 'select pg_current_wal_lsn()::text as value');
      await waitFor(
        async () =>
          (
            await queryOnce<{ done: boolean }>(
              replica,
              `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`,
            ).catch(() => [{ done: false }])
          )[0]?.done === true,
        30_000,
        'the replica replaying the primary',
      );
    };
    /** How many times the replica has looked products up (its own statistics, flushed within a second). */
    const productReadsOnReplica = async (): Promise<number> => {
      const rows = await queryOnce<{ reads: string }>(
        replica,
        "select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as reads from pg_stat_user_tables where relname = 'products'",
      );
      return Number(rows[0]?.reads ?? 0);
    };

    const dir = mkdtempSync(join(tmpdir(), 'portico-replica-fleet-'));
    const children: ChildProcess[] = [];
    let balancer: ChildProcess | undefined;
    let replayPaused = false;
    let replicaStopped = false;
    try {
      const env = {
        SVC_DATABASE_URL: pooled,
        SVC_DATABASE_MIGRATION_URL: primary,
        SVC_DATABASE_PREPARED_STATEMENTS: 'false',
        SVC_DATABASE_REPLICA_URLS: pooledReplica,
        // A paused replica keeps serving reads for the whole pause: what makes a stale read possible.
        SVC_DATABASE_REPLICA_MAX_LAG: '60s',
        // A read sent to the stopped replica through the pooler waits for it: 2 s, then the primary.
        SVC_DATABASE_QUERY_TIMEOUT: '2s',
        SVC_REDIS_URL: redis,
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_METRICS_ENABLED: 'false',
        SVC_LOG_LEVEL: 'silent',
        SVC_SERVER_HOST: '127.0.0.1',
        // Behind the balancer: a client's address is the one it forwards.
        SVC_SERVER_TRUST_PROXY: 'true',
        SVC_SERVER_MAX_CONNECTIONS_PER_IP: '10000',
      };
      // The first admin, made by the CLI on the primary; the instances start once the replica has it.
      const onPrimary = { ...env, SVC_DATABASE_REPLICA_URLS: '' };
      const admin = { email: `fleet-${process.pid}-${Date.now()}@example.com`, password: 'replica fleet password' };
      await createUserByCli(onPrimary, { ...admin, role: 'admin' });
      await caughtUp();

      const ports = [await freePort(), await freePort(), await freePort()];
      await Promise.all(
        ports.map(async (port) => {
          const { child } = await startEntry(
            'src/main/server.ts',
            { ...env, SVC_SERVER_PORT: String(port) },
            /Portico listening on http:\/\/127\.0\.0\.1:\d+ /,
            60_000,
          );
          children.push(child);
        }),
      );
      const front = await freePort();
      balancer = startHaproxy(dir, haproxyConfig(front, ports, { maxconn: 2000, forwardFor: true }));
      const base = `http://127.0.0.1:${front}`;
      /** The `replica` check of every instance, asked of each directly. */
      const replicaChecks = async (): Promise<string[]> =>
        Promise.all(
          ports.map(async (port) => {
            const answer = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
            const report = (await answer?.json().catch(() => undefined)) as
              { checks?: { replica?: { status: string } } } | undefined;
            return report?.checks?.replica?.status ?? 'no answer';
          }),
        );
      await waitFor(async () => (await replicaChecks()).every((status) => status === 'up'), 20_000, 'replicas up');
      await waitFor(async () => (await fetch(`${base}/health/ready`).catch(() => undefined))?.status === 200, 10_000);

      // Three writers with the role that may write products (a moderator), and two readers.
      const api = new Api(base);
      const adminToken = (await login(api, admin.email, admin.password)).access_token;
      const writerAccounts = await Promise.all([0, 1, 2].map(() => register(api)));
      // Another client's writes (the admin's reads of these users) may be read as old as the replica's lag.
      await caughtUp();
      for (const account of writerAccounts) {
        dataOf(
          await api.put(`/api/v1/admin/users/${account.user.id}`, { token: adminToken, json: { role: 'moderator' } }),
        );
      }
      const readerAccounts = await Promise.all([0, 1].map(() => register(api)));
      const shared = dataOf<{ id: string }>(
        await api.post('/api/v1/products', {
          token: adminToken,
          json: { ...PRODUCT_BODY, name: 'fleet shared', price: 1 },
        }),
        201,
      );
      await caughtUp();
      const writerTokens = await Promise.all(
        writerAccounts.map(async (account) => (await login(api, account.user.email, account.password)).access_token),
      );
      const readerTokens = readerAccounts.map((account) => account.access_token);
      // Each client from a loopback address of its own, which the balancer forwards: the instances
      // tell the clients apart (a client is its address and its user).
      const clients = [...writerTokens, ...readerTokens].map((token, i): Client => ({
        token,
        agent: new Agent({ keepAlive: true, localAddress: `127.0.0.${10 + i}` }),
      }));
      const writers = clients.slice(0, writerTokens.length);
      const readers = clients.slice(writerTokens.length);
      // The writers' sessions too: the load below is what tests reading one's own writes.
      await caughtUp();

      const failures: string[] = [];
      const stale: string[] = [];
      let requests = 0;
      let running = true;
      /** What the run is at, told with each failure and stale read. */
      let stage = 'healthy';
      /** One request of a client, on its own connections from its own address; a connection error is a failure. */
      const call = (client: Client, method: string, path: string, body?: unknown): Promise<Answer | undefined> => {
        requests += 1;
        const payload = body === undefined ? undefined : JSON.stringify(body);
        return new Promise((resolve) => {
          const request = httpRequest(
            `${base}${path}`,
            {
              method,
              agent: client.agent,
              headers: {
                authorization: `Bearer ${client.token}`,
                ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
              },
            },
            (response) => {
              let text = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => (text += chunk));
              response.on('end', () => {
                const etag = response.headers.etag;
                resolve({ status: response.statusCode ?? 0, text, etag: etag ?? null });
              });
            },
          );
          request.on('error', (error) => {
            failures.push(`[${stage}] ${method} ${path}: ${error.message}`);
            resolve(undefined);
          });
          request.end(payload);
        });
      };
      /** The answer's product and version when it has `status`, else a failure noted. */
      const expectStatus = (answer: Answer | undefined, status: number, what: string): Written | undefined => {
        if (!answer) return undefined;
        if (answer.status !== status) {
          failures.push(`[${stage}] ${what}: ${answer.status} ${answer.text.slice(0, 160)}`);
          return undefined;
        }
        return { ...(JSON.parse(answer.text) as { data: ProductJson }).data, etag: answer.etag };
      };
      /**
       * A writer's read of the product it has just written: a stale read unless it shows that very
       * write, its version and price (a 404 for a product it has just made is one too); any other
       * answer is a failure.
       */
      const readBack = async (client: Client, written: Written, what: string): Promise<void> => {
        const answer = await call(client, 'GET', `/api/v1/products/${written.id}`);
        if (answer?.status === 404) {
          stale.push(`[${stage}] ${what} ${written.name} (${written.etag}), read: 404`);
          return;
        }
        const seen = expectStatus(answer, 200, `read back: ${what}`);
        if (seen && (!seen.etag || seen.etag !== written.etag || seen.price !== written.price))
          stale.push(`[${stage}] ${what} ${written.name} (${written.etag}), read ${seen.etag}`);
      };
      /** A writer: creates a product and reads it back, changes it and reads it back, again and again. */
      const writer = async (client: Client, n: number): Promise<void> => {
        let round = 0;
        while (running) {
          round += 1;
          const product = { ...PRODUCT_BODY, name: `fleet ${n}.${round}`, price: round };
          const made = expectStatus(await call(client, 'POST', '/api/v1/products', product), 201, 'create');
          if (!made) continue;
          await readBack(client, made, 'created');
          const change = { ...product, price: round + 0.5 };
          const changed = expectStatus(await call(client, 'PUT', `/api/v1/products/${made.id}`, change), 200, 'update');
          if (!changed) continue;
          await readBack(client, changed, 'updated');
          await sleep(20);
        }
      };
      /** A reader: a product by id and a page of the list; these may be as old as the replica's lag. */
      const reader = async (client: Client): Promise<void> => {
        while (running) {
          expectStatus(await call(client, 'GET', `/api/v1/products/${shared.id}`), 200, 'read a product');
          expectStatus(await call(client, 'GET', '/api/v1/products?per_page=5'), 200, 'list products');
          await sleep(20);
        }
      };

      const readsBefore = await productReadsOnReplica();
      const load = [...writers.map((client, n) => writer(client, n)), ...readers.map((client) => reader(client))];
      const phase = async (ms: number): Promise<number> => {
        const from = requests;
        await sleep(ms);
        return requests - from;
      };
      try {
        // Both servers serve: the replica answers reads.
        const healthy = await phase(1500);
        expect(await productReadsOnReplica(), 'product reads on the replica before any fault').to.be.greaterThan(
          readsBefore,
        );

        // Replay paused: the replica falls behind the writers; reads of what a writer has just written
        // must not come from it.
        await queryOnce(replica, 'select pg_wal_replay_pause()');
        replayPaused = true;
        stage = 'replay paused';
        const before = Number(await valueOf(replica, 'select count(*) as value from products'));
        const paused = await phase(3000);
        const onReplica = Number(await valueOf(replica, 'select count(*) as value from products'));
        const onPrimary = Number(await valueOf(primary, 'select count(*) as value from products'));
        expect(onReplica, 'products on the paused replica').to.equal(before);
        expect(onPrimary, 'products on the primary, written during the pause').to.be.greaterThan(onReplica);
        await queryOnce(replica, 'select pg_wal_replay_resume()');
        replayPaused = false;
        stage = 'replay resumed';
        await phase(500);

        // Replica stopped: its reads go to the primary, every instance says `replica` degraded.
        await replicaCommand('replica-stop');
        replicaStopped = true;
        stage = 'replica stopped';
        const stoppedAt = requests;
        await waitFor(
          async () => (await replicaChecks()).every((status) => status === 'degraded'),
          15_000,
          'every instance reporting the replica degraded',
        );
        await phase(1500);
        const stopped = requests - stoppedAt;

        // Started again: every instance finds it up, and reads return to it.
        await replicaCommand('replica-start');
        replicaStopped = false;
        stage = 'replica started';
        await waitFor(
          async () => (await replicaChecks()).every((status) => status === 'up'),
          20_000,
          'every instance reporting the replica up again',
        );
        const readsAfterRestart = await productReadsOnReplica();
        await waitFor(
          async () => (await productReadsOnReplica()) > readsAfterRestart,
          10_000,
          'product reads on the replica after its restart',
        );
        const restarted = await phase(1000);
        for (const [name, count] of Object.entries({ healthy, paused, stopped, restarted }))
          expect(count, `requests made while ${name}`).to.be.greaterThan(20);
      } finally {
        running = false;
        await Promise.all(load);
        for (const client of clients) client.agent.destroy();
      }

      expect(failures.length, `failed requests of ${requests}, some: ${failures.slice(0, 5).join(' | ')}`).to.equal(0);
      expect(stale.length, `stale reads by the writing clients, some: ${stale.slice(0, 5).join(' | ')}`).to.equal(0);
    } finally {
      balancer?.kill('SIGKILL');
      for (const child of children) child.kill('SIGKILL');
      if (replayPaused) await queryOnce(replica!, 'select pg_wal_replay_resume()').catch(() => undefined);
      if (replicaStopped) await replicaCommand('replica-start').catch(() => undefined);
      // The suites after this one read the replica: it is left streaming and caught up.
      await caughtUp().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
