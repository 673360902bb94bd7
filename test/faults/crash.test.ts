import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { connectDatabase } from '../support/database.js';
import { Api, login } from '../support/api.js';
import { PgCluster, postgresBin } from '../support/faults.js';
import { createUserByCli, startEntry } from '../support/process.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

const READY = /Portico listening on (http:\/\/127\.0\.0\.1:\d+) /;

async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const { child, match } = await startEntry(
    'src/main/server.ts',
    { SVC_SERVER_PORT: '0', SVC_SERVER_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', ...env },
    READY,
  );
  return { child, url: match[1]! };
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Writers hammer the service for `ms`; returns the ids of the products whose creation was
 * acknowledged (201) and the ids and names of acknowledged updates. Errors from the kill
 * (connection reset) end a writer's current request, which is then not acknowledged.
 */
async function hammer(
  api: Api,
  token: string,
  ms: number,
  writers: number,
): Promise<{ created: Map<string, string>; updated: Map<string, string> }> {
  const created = new Map<string, string>();
  const updated = new Map<string, string>();
  const until = Date.now() + ms;
  let n = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (Date.now() < until) {
        const name = `crash ${(n += 1)}`;
        const answer = await api
          .post('/api/v1/products', { token, json: { ...PRODUCT_BODY, name, price: n } })
          .catch(() => undefined);
        if (answer?.status !== 201) continue;
        const id = (answer.body as { data: { id: string } }).data.id;
        created.set(id, name);
        const renamed = `${name} renamed`;
        const changed = await api
          .put(`/api/v1/products/${id}`, { token, json: { name: renamed } })
          .catch(() => undefined);
        if (changed?.status === 200) updated.set(id, renamed);
      }
    }),
  );
  return { created, updated };
}

/**
 * The fault suite, durability part (README: the fault suite): every write answered 2xx survives `kill -9`
 * of the service right after, on SQLite and PostgreSQL, and the database is intact.
 */
describe('faults: kill -9 during concurrent writes', function () {
  this.timeout(120_000);

  async function crashAndCheck(databaseUrl: string, checkIntegrity: () => Promise<void>): Promise<void> {
    const env = { SVC_DATABASE_URL: databaseUrl, SVC_RATE_LIMIT_ENABLED: 'false', SVC_AUTH_BCRYPT_COST: '4' };
    await createUserByCli(env, {
      email: 'crash@example.com',
      password: 'crash-test-pw',
      firstName: 'C',
      lastName: 'Rash',
      role: 'moderator',
    });

    const first = await startServer(env);
    const api = new Api(first.url);
    const token = (await login(api, 'crash@example.com', 'crash-test-pw')).access_token;
    // Writers run on; the process is killed under them while requests are in flight.
    const writing = hammer(api, token, 2500, 8);
    await new Promise((r) => setTimeout(r, 1200));
    await kill9(first.child);
    const { created, updated } = await writing;
    expect(created.size).to.be.greaterThan(10);

    await checkIntegrity();
    const second = await startServer(env);
    try {
      const again = new Api(second.url);
      const fresh = (await login(again, 'crash@example.com', 'crash-test-pw')).access_token;
      const missing: string[] = [];
      const stale: string[] = [];
      for (const [id, name] of created) {
        const answer = await again.get(`/api/v1/products/${id}`, { token: fresh });
        if (answer.status !== 200) missing.push(id);
        else if (updated.has(id) && (answer.body as { data: { name: string } }).data.name !== updated.get(id))
          stale.push(id);
        else if (
          !updated.has(id) &&
          ![name, `${name} renamed`].includes((answer.body as { data: { name: string } }).data.name)
        )
          stale.push(id);
      }
      expect(missing, 'acknowledged creations lost').to.deep.equal([]);
      expect(stale, 'acknowledged updates lost').to.deep.equal([]);
    } finally {
      await kill9(second.child);
    }
  }

  it('SQLite file: every acknowledged write is there after a restart, and integrity_check is ok', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-crash-'));
    const url = `sqlite:${join(dir, 'portico.sqlite')}`;
    try {
      await crashAndCheck(url, async () => {
        const db = await connectDatabase(url);
        try {
          const rows = (await db.orm.em.getConnection().execute('pragma integrity_check', [], 'all')) as {
            integrity_check: string;
          }[];
          expect(rows.map((r) => r.integrity_check)).to.deep.equal(['ok']);
        } finally {
          await db.close();
        }
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: every acknowledged write is there after a restart, and amcheck finds every index intact', async function () {
    if (!postgresBin()) {
      if (process.env.CI === 'true') throw new Error('CI must install PostgreSQL for the fault suite');
      console.log('      (skipped: needs the PostgreSQL server binaries)');
      this.skip();
    }
    const cluster = await PgCluster.create();
    try {
      await crashAndCheck(cluster.url, async () => {
        const db = await connectDatabase(cluster.url);
        try {
          const connection = db.orm.em.getConnection();
          // amcheck (shipped with the server) verifies every B-tree index of the table against it.
          await connection.execute('create extension if not exists amcheck');
          const checked = (await connection.execute(
            `select c.relname, bt_index_parent_check(c.oid, true) from pg_index i
             join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
             where a.amname = 'btree' and i.indrelid in ('products'::regclass, 'users'::regclass)`,
            [],
            'all',
          )) as { relname: string }[];
          expect(checked.length).to.be.greaterThan(3);
        } finally {
          await db.close();
        }
      });
    } finally {
      await cluster.destroy();
    }
  });
});
