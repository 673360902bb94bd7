import { expect } from 'chai';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PgBossJobs } from '../../src/adapters/outbound/pgboss/PgBossJobs.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { Api, register, uniqueEmail } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { externalService, pooledPostgres } from '../support/env.js';
import { jobsSettled } from '../support/jobs.js';
import { silentLogger } from '../support/logger.js';
import { linkToken, startSmtpServer, type TestSmtpServer } from '../support/smtp.js';

/** Anything shaped like an e-mailed token: `<22-character selector>.<43-character verifier>`. */
const TOKEN_SHAPED = /[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A copy of a database as an attacker would hold it: every byte or every row, as text. */
type Copy = () => Promise<string>;

/** What the SQLite database's files hold, byte for byte (the main file and its write-ahead log). */
function sqliteFiles(file: string, scratch: string): Copy {
  return async () => {
    let text = '';
    for (const suffix of ['', '-wal', '-shm']) {
      if (!existsSync(file + suffix)) continue;
      const copy = join(scratch, `copy${suffix || '-main'}`);
      copyFileSync(file + suffix, copy);
      text += readFileSync(copy).toString('latin1');
    }
    return text;
  };
}

/** Every row of every table of every schema of the PostgreSQL database (pg-boss's job and archive included). */
function postgresRows(url: string): Copy {
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const tables = await client.query<{ schema: string; name: string }>(
        `select table_schema as schema, table_name as name from information_schema.tables
          where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
      );
      expect(tables.rows.map((t) => `${t.schema}.${t.name}`)).to.include.members(['pgboss.job', 'pgboss.archive']);
      const rows: string[] = [];
      for (const { schema, name } of tables.rows) {
        const result = await client.query<{ row: string }>(
          `select row_to_json(t)::text as row from "${schema}"."${name}" t`,
        );
        for (const { row } of result.rows) rows.push(`${schema}.${name}: ${row}`);
      }
      return rows.join('\n');
    } finally {
      await client.end();
    }
  };
}

interface Engine {
  readonly name: string;
  /** The database settings, or `undefined` when the engine is not here (the suite is skipped). */
  settings(scratch: string): Record<string, string> | undefined;
  copy(scratch: string): Copy;
  /** Waits until the finished account mail jobs were moved to the engine's archive, where it has one. */
  archived?(): Promise<void>;
}

const POSTGRES = externalService('SVC_TEST_POSTGRES_URL');

const ENGINES: Engine[] = [
  {
    name: 'SQLite',
    settings: (scratch) => ({ SVC_DATABASE_URL: `sqlite:${join(scratch, 'portico.sqlite')}` }),
    copy: (scratch) => sqliteFiles(join(scratch, 'portico.sqlite'), scratch),
  },
  {
    name: 'PostgreSQL (pg-boss)',
    settings: () => (POSTGRES === undefined ? undefined : { SVC_DATABASE_URL: POSTGRES }),
    copy: () => postgresRows(pooledPostgres(POSTGRES!)?.migrationUrl ?? POSTGRES!),
    // pg-boss moves finished jobs to its archive once they are past their retention (a day for the
    // service's completed jobs): a second pg-boss on the same schema with a retention of a second
    // runs that maintenance now, for every job of the schema.
    archived: async () => {
      const url = pooledPostgres(POSTGRES!)?.migrationUrl ?? POSTGRES!;
      const boss = new PgBossJobs({ connectionString: url, completedRetentionMs: 1000, maintenanceIntervalSeconds: 1 });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await boss.start();
        for (let tries = 0; tries < 200; tries += 1) {
          const { rows } = await client.query<{ n: string }>(
            `select count(*) as n from pgboss.archive where name in ('mail.send', 'account.link')`,
          );
          if (Number(rows[0]!.n) >= 2) return;
          await sleep(25);
        }
        throw new Error('the account mail jobs never reached pg-boss’s archive');
      } finally {
        await client.end();
        await boss.stop();
      }
    },
  },
];

for (const engine of ENGINES) {
  describe(`no working e-mailed token at rest: ${engine.name} (end to end, real SMTP server)`, function () {
    this.timeout(60_000);
    const scratch = mkdtempSync(join(tmpdir(), 'portico-tokens-at-rest-'));
    let smtp: TestSmtpServer;
    let service: RunningService | undefined;
    let api: Api;

    before(async function () {
      const settings = engine.settings(scratch);
      if (!settings) return this.skip();
      smtp = await startSmtpServer();
      service = await startService(
        testConfig({
          ...settings,
          SVC_AUTH_BCRYPT_COST: '4',
          SVC_RATE_LIMIT_ENABLED: 'false',
          // The mail budget per client address is counted in the database, which the suites before
          // this one share: their registrations from 127.0.0.1 would spend it, and the reset mail
          // this suite waits for would be withheld (the request still answers 202).
          SVC_ACCOUNT_MAILS_PER_IP_PER_HOUR: '1000000',
          SVC_MAIL_SMTP_URL: smtp.url,
          SVC_MAIL_LINK_BASE_URL: 'https://app.example.com/account',
        }),
        { logger: silentLogger() },
      );
      api = new Api(service.url);
    });
    after(async () => {
      await service?.stop();
      await smtp?.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    /** Fails unless no token-shaped text in `copy` resets a password, and `token` is nowhere in it. */
    async function expectNoWorkingToken(copy: string, token: string, when: string): Promise<void> {
      const verifier = token.split('.')[1]!;
      expect(copy.includes(verifier), `${when}: the mailed token's verifier is in the copy`).to.equal(false);
      for (const found of new Set(copy.match(TOKEN_SHAPED) ?? [])) {
        const tried = await api.post('/api/v1/auth/password/reset', {
          json: { token: found, password: 'taken over!' },
        });
        expect(tried.status, `${when}: a token read from the copy reset a password`).to.equal(400);
      }
    }

    it('holds none right after a forgot-password request, once the mail went out, nor in the jobs archive', async () => {
      const email = uniqueEmail('at-rest');
      await register(api, { email });
      const copy = engine.copy(scratch);
      const forgot = await api.post('/api/v1/auth/password/forgot', { json: { email } });
      expect(forgot.status).to.equal(202);
      const rightAfter = await copy();
      const mail = await smtp.waitFor((m) => m.to.includes(email) && /reset/i.test(m.subject));
      const token = linkToken(mail);
      await jobsSettled(service!.container.get(TOKENS.JobAdmin));
      const copies: [string, string][] = [
        ['right after the request', rightAfter],
        ['after the mail was sent', await copy()],
      ];
      if (engine.archived) {
        await engine.archived();
        copies.push(['with the finished jobs archived', await copy()]);
      }
      for (const [when, text] of copies) await expectNoWorkingToken(text, token, when);
      // The mailed token itself works: what was looked for was a working link.
      const reset = await api.post('/api/v1/auth/password/reset', { json: { token, password: 'a new passphrase' } });
      expect(reset.status, reset.text).to.equal(204);
    });
  });
}
