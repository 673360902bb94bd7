import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api, dataOf, login, register } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { connectDatabase } from '../support/database.js';
import { externalService } from '../support/env.js';
import { silentLogger } from '../support/logger.js';
import { PgBouncer } from '../support/pgbouncer.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

const postgresUrl = externalService('SVC_TEST_POSTGRES_URL');

/** `postgresUrl` with another database name. */
const onDatabase = (url: string, name: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
};

/**
 * PostgreSQL behind PgBouncer 1.18 in transaction mode, default settings otherwise: the service
 * starts (no start-up parameter the pooler refuses), migrates past it (database.migration_url, a
 * direct connection, takes the migration lock), and with database.prepared_statements false
 * serves concurrent reads, writes and logins without an error.
 */
describe('behind PgBouncer in transaction mode (docs/storage.md)', function () {
  this.timeout(120_000);
  const name = `portico_pgbouncer_${process.pid}`;
  let admin: pg.Client;
  let bouncer: PgBouncer;
  let direct: string;

  before(async function () {
    if (!postgresUrl || !PgBouncer.available()) {
      if (process.env.CI === 'true') throw new Error('CI must install pgbouncer and set SVC_TEST_POSTGRES_URL');
      console.log('      (skipped: needs SVC_TEST_POSTGRES_URL and Debian pgbouncer)');
      this.skip();
    }
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    direct = onDatabase(postgresUrl, name);
    bouncer = await PgBouncer.start(postgresUrl);
  });
  after(async () => {
    await bouncer?.stop();
    await admin?.query(`drop database if exists ${name} with (force)`);
    await admin?.end();
  });

  const start = (preparedStatements: boolean): Promise<RunningService> =>
    startService(
      testConfig({
        SVC_DATABASE_URL: bouncer.url(direct),
        SVC_DATABASE_MIGRATION_URL: direct,
        SVC_DATABASE_PREPARED_STATEMENTS: String(preparedStatements),
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
      }),
      { logger: silentLogger() },
    );

  it('two instances start and migrate at once through the pooler; 50 concurrent clients see no error', async () => {
    const [a, b] = await Promise.all([start(false), start(false)]);
    try {
      const apis = [new Api(a.url), new Api(b.url)];
      const admin = await accountWithRole(a, apis[0]!, 'admin');
      const user = await register(apis[1]!);
      const ids = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const created = await apis[i % 2]!.post('/api/v1/products', {
            token: admin.access_token,
            json: { ...PRODUCT_BODY, name: `pooled ${i}`, price: i + 1 },
          });
          return dataOf<{ id: string }>(created, 201).id;
        }),
      );
      const statuses: number[] = [];
      const client = async (n: number): Promise<void> => {
        const api = apis[n % 2]!;
        for (let i = 0; i < 6; i += 1) {
          const kind = (n + i) % 4;
          const response =
            kind === 0
              ? await api.get(`/api/v1/products/${ids[(n + i) % ids.length]}`, { token: admin.access_token })
              : kind === 1
                ? await api.get('/api/v1/products?per_page=5&sort=price', { token: user.access_token })
                : kind === 2
                  ? await api.post('/api/v1/products', {
                      token: admin.access_token,
                      json: { ...PRODUCT_BODY, name: `pooled ${randomUUID()}`, price: 3 },
                    })
                  : await api.post('/api/v1/auth/login', { json: { email: user.user.email, password: user.password } });
          statuses.push(response.status);
        }
      };
      await Promise.all(Array.from({ length: 50 }, (_, n) => client(n)));
      expect(statuses).to.have.length(300);
      expect(
        statuses.filter((status) => status >= 300),
        'answers other than 2xx',
      ).to.deep.equal([]);
      expect((await login(apis[0]!, user.user.email, user.password)).user.id).to.equal(user.user.id);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  /**
   * A hot read on a client connection, then the same read again while another client's
   * transaction holds the server connection the first one ran on (the pool's only idle one), so
   * the pooler hands the second read another server connection. Answers the second read's outcome.
   */
  const readAgainElsewhere = async (preparedStatements: boolean): Promise<unknown> => {
    const pooled = bouncer.url(direct);
    const database = await connectDatabase(pooled, { preparedStatements, migrationUrl: direct });
    const holder = new pg.Client({ connectionString: pooled });
    try {
      await database.migrate();
      const read = (key: string) => database.sql.one('select key from app_meta where key = ?', [key]);
      await read('a');
      await holder.connect();
      await holder.query('begin');
      await holder.query('select 1');
      const outcome = await read('b').then(
        (row) => ({ row }),
        (error: unknown) => ({ error }),
      );
      await holder.query('rollback');
      return outcome;
    } finally {
      await holder.end().catch(() => undefined);
      await database.close();
    }
  };

  /**
   * Why `database.prepared_statements` must be false behind a transaction pooler: node-postgres
   * remembers which statements it prepared on its connection, but the pooler hands each
   * transaction whichever server connection is free, and that one does not have them.
   */
  it('with prepared_statements true, a statement prepared on one server connection is missing on the next (26000)', async () => {
    const outcome = await readAgainElsewhere(true);
    expect(outcome, 'the named statement is not on the server connection the pooler chose')
      .to.have.property('error')
      .that.has.property('code', '26000');
  });

  it('with prepared_statements false, the same steps work: nothing depends on the server session', async () => {
    expect(await readAgainElsewhere(false)).to.deep.equal({ row: undefined });
  });
});
