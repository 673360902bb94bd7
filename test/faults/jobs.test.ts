import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { Api, login } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { PgCluster, postgresBin, waitFor } from '../support/faults.js';
import { capturingLogger } from '../support/logger.js';
import { createUserByCli, startEntry } from '../support/process.js';
import { linkToken, startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../support/smtp.js';

/**
 * The fault suite, background jobs part (docs/jobs.md): account mail is a job
 * (`account.link`, then `mail.send`), stored with the request that asked for it and run at least
 * once by one runner at a time. So a forgot-password request answered 202 sends its mail even when
 * the service is killed at once; a mail server that is down delays the mails, loses none and sends
 * none twice; and two instances on one database send each mail once.
 */

const READY = /Portico listening on (http:\/\/127\.0\.0\.1:\d+) /;
const RESET = /reset your portico password/i;
const VERIFY = /confirm your e-mail/i;
const PASSWORD = 'jobs fault password';
/** `jobs.timeout`: a run whose runner died is taken up again after it (default 5 m, far too long here). */
const JOBS_TIMEOUT = '3s';
/** How long to go on listening once every expected mail came: past `jobs.timeout` and a poll or two. */
const SETTLE_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What every instance here is started with: a database, the test's SMTP server, nothing in the way of many mails. */
function serviceEnv(databaseUrl: string, smtp: TestSmtpServer): Record<string, string> {
  return {
    SVC_DATABASE_URL: databaseUrl,
    SVC_MAIL_SMTP_URL: smtp.url,
    SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
    SVC_JOBS_TIMEOUT: JOBS_TIMEOUT,
    SVC_AUTH_BCRYPT_COST: '4',
    SVC_RATE_LIMIT_ENABLED: 'false',
    // Every request comes from 127.0.0.1: the per-IP limit on account mail (default 20 an hour) would stop them.
    SVC_ACCOUNT_MAILS_PER_IP_PER_HOUR: '1000000',
    SVC_METRICS_ENABLED: 'false',
    SVC_SERVER_HOST: '127.0.0.1',
    SVC_SERVER_PORT: '0',
    // Quiet, but a job that fails (retried or given up) is logged: shown when a test fails.
    SVC_LOG_LEVEL: 'warn',
  };
}

/** An instance of the service in a process of its own (`src/main/server.ts`), as `npm start` runs it. */
interface Instance {
  readonly child: ChildProcess;
  readonly api: Api;
  readonly output: () => string;
}

async function startInstance(env: Record<string, string>): Promise<Instance> {
  const { child, match, output } = await startEntry('src/main/server.ts', env, READY, 60_000);
  return { child, api: new Api(match[1]!), output };
}

async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function forgot(api: Api, email: string): Promise<void> {
  const answer = await api.post('/api/v1/auth/password/forgot', { json: { email } });
  expect(answer.status, answer.text).to.equal(202);
}

async function register(api: Api, email: string): Promise<void> {
  const answer = await api.post('/api/v1/auth/register', {
    json: { email, password: PASSWORD, first_name: 'Job', last_name: 'Fault' },
  });
  expect(answer.status, answer.text).to.equal(201);
}

/** How many mails whose subject matches `subject` each address got (addresses that got none: 0). */
function countsTo(
  messages: readonly ReceivedMail[],
  addresses: readonly string[],
  subject: RegExp,
): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(addresses.map((address) => [address, 0]));
  for (const mail of messages) {
    if (!subject.test(mail.subject)) continue;
    for (const to of mail.to) if (to in counts) counts[to] = (counts[to] ?? 0) + 1;
  }
  return counts;
}

const once = (addresses: readonly string[]): Record<string, number> =>
  Object.fromEntries(addresses.map((address) => [address, 1]));

/** Every address got at least one such mail. */
const allArrived = (messages: readonly ReceivedMail[], addresses: readonly string[], subject: RegExp): boolean =>
  Object.values(countsTo(messages, addresses, subject)).every((n) => n >= 1);

function skipWithoutPostgres(context: Mocha.Context): void {
  if (postgresBin()) return;
  if (process.env.CI === 'true') throw new Error('CI must install PostgreSQL for the fault suite');
  console.log('      (skipped: needs the PostgreSQL server binaries)');
  context.skip();
}

/** A new, empty database on `cluster`; its URL. */
async function newDatabase(cluster: PgCluster, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Runs `body` over the instances it starts (pushed to `instances`): when it fails, every
 * instance's output is printed with the failure; whatever happens, they are killed and `smtp` closed.
 */
async function watching(instances: Instance[], smtp: TestSmtpServer, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    for (const [n, instance] of instances.entries())
      console.log(`      instance ${n + 1} output:\n${instance.output()}`);
    throw error;
  } finally {
    for (const instance of instances) await kill9(instance.child);
    await smtp.close();
  }
}

describe('faults: background jobs (account mail)', function () {
  this.timeout(180_000);

  describe('kill -9 right after a forgot-password 202', () => {
    /**
     * The 202 is the last thing the first instance does: it is killed (SIGKILL) the moment the
     * answer arrives, before its runner (polling every 250 ms on SQLite, 500 ms on pg-boss) has had
     * time to take the job — or, if it did, while the job is active (taken up again after
     * `jobs.timeout`). Started again on the same database, the service sends the reset mail, once,
     * and its link works.
     */
    async function killAndRestart(databaseUrl: string, mailWaitMs: number): Promise<void> {
      const smtp = await startSmtpServer();
      const instances: Instance[] = [];
      await watching(instances, smtp, async () => {
        const env = serviceEnv(databaseUrl, smtp);
        const email = 'killed-after-202@example.com';
        await createUserByCli(env, { email, password: PASSWORD, role: 'user', firstName: 'K', lastName: 'Ill' });

        const first = await startInstance(env);
        instances.push(first);
        const answer = await first.api.post('/api/v1/auth/password/forgot', { json: { email } });
        first.child.kill('SIGKILL');
        expect(answer.status, answer.text).to.equal(202);
        await kill9(first.child);

        const second = await startInstance(env);
        instances.push(second);
        const mail = await smtp.waitFor((m) => m.to.includes(email) && RESET.test(m.subject), mailWaitMs);
        // Long enough for a run taken twice (one after its timeout) to show as a second mail.
        await sleep(SETTLE_MS);
        expect(countsTo(smtp.messages, [email], RESET), 'reset mails').to.deep.equal(once([email]));
        expect(smtp.messages.map((m) => `${m.to.join(',')}: ${m.subject}`)).to.have.length(1);

        // The mailed token is the one the job stored: the reset works, and the new password with it.
        const reset = await second.api.post('/api/v1/auth/password/reset', {
          json: { token: linkToken(mail), password: 'a password after the crash' },
        });
        expect(reset.status, reset.text).to.equal(204);
        await login(second.api, email, 'a password after the crash');
      });
    }

    it('SQLite file: the reset mail is sent once the service runs again, exactly once', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'portico-jobs-kill-'));
      try {
        await killAndRestart(`sqlite:${join(dir, 'portico.sqlite')}`, 15_000);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('PostgreSQL (pg-boss): the reset mail is sent once the service runs again, exactly once', async function () {
      skipWithoutPostgres(this);
      const cluster = await PgCluster.create();
      try {
        // A job the killed runner had already taken waits for pg-boss's supervisor (every 60 s) to
        // see its run timed out: the rare case, allowed for.
        await killAndRestart(cluster.url, 90_000);
      } finally {
        await cluster.destroy();
      }
    });
  });

  it('SMTP server stopped for 20 s during 10 forgot-password requests: all 10 mails arrive after it is back, none twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-jobs-smtp-'));
    const logs = capturingLogger();
    let smtp: TestSmtpServer | undefined = await startSmtpServer();
    let back: TestSmtpServer | undefined;
    let service: RunningService | undefined;
    try {
      service = await startService(testConfig(serviceEnv(`sqlite:${join(dir, 'portico.sqlite')}`, smtp)), {
        logger: logs.logger,
        smtpTimeoutMs: 1000,
      });
      const api = new Api(service.url);
      const jobs = service.container.get(TOKENS.JobAdmin);
      const addresses = Array.from({ length: 10 }, (_, i) => `outage-${i}@example.com`);
      for (const email of addresses) await register(api, email);
      // The registrations' verification mails go out while the server is up.
      const first = smtp;
      await waitFor(() => allArrived(first.messages, addresses, VERIFY), 15_000, 'the verification mails');

      const { port } = smtp;
      await smtp.close();
      smtp = undefined;
      const stoppedAt = Date.now();
      await Promise.all(addresses.map((email) => forgot(api, email)));
      // Each mail was made and tried, and waits for its retry: the server being down is a failed run.
      await waitFor(
        async () => (await jobs.list({ state: 'retry', name: 'mail.send', page: 1, perPage: 50 })).total === 10,
        15_000,
        '10 mail.send jobs waiting for their retry',
      );
      await sleep(20_000 - (Date.now() - stoppedAt));

      back = await startSmtpServer({ port });
      const returned = back;
      const backAt = Date.now();
      // Retries after 1, 2, 4, 8, 16 s: the last one before the server came back was at about 15 s,
      // the next at about 31 s; so within about 12 s of its return (30 s allowed).
      await waitFor(() => allArrived(returned.messages, addresses, RESET), 30_000, 'the 10 reset mails');
      const arrivedAfterMs = Date.now() - backAt;
      await sleep(SETTLE_MS);

      const mails = [...first.messages, ...returned.messages];
      expect(countsTo(mails, addresses, RESET), 'reset mails per address').to.deep.equal(once(addresses));
      expect(countsTo(mails, addresses, VERIFY), 'verification mails per address').to.deep.equal(once(addresses));
      expect(mails).to.have.length(20);
      expect(arrivedAfterMs).to.be.below(30_000);
      const failed = await jobs.list({ state: 'failed', page: 1, perPage: 50 });
      expect(failed.items, 'failed jobs').to.deep.equal([]);
      const waiting = await jobs.stats(new Date());
      expect(waiting.waiting, 'jobs still due').to.deep.equal({});
    } catch (error) {
      const warnings = logs
        .lines()
        .filter((line) => Number(line.level) >= 40)
        .map((line) => JSON.stringify(line));
      console.log(`      service warnings and errors (${warnings.length}):\n${warnings.slice(-60).join('\n')}`);
      throw error;
    } finally {
      await service?.stop();
      await smtp?.close();
      await back?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two instances on one PostgreSQL, 50 forgot-password requests spread over both: 50 mails, none twice', async function () {
    skipWithoutPostgres(this);
    const cluster = await PgCluster.create();
    const smtp = await startSmtpServer();
    const instances: Instance[] = [];
    await watching(instances, smtp, async () => {
      const env = serviceEnv(cluster.url, smtp);
      const addresses = Array.from({ length: 50 }, (_, i) => `pair-${i}@example.com`);
      // One instance and one user first, alone: its start, the registration and its verification
      // mail make pg-boss's queues (one per job name) once. Two instances making them at the same
      // moment is the next test's subject; here they are only the set-up.
      const one = await startInstance(env);
      instances.push(one);
      await register(one.api, addresses[0]!);
      await waitFor(
        () => allArrived(smtp.messages, addresses.slice(0, 1), VERIFY),
        30_000,
        'the first verification mail',
      );
      const two = await startInstance(env);
      instances.push(two);
      const apiFor = (i: number): Api => (i % 2 === 0 ? one.api : two.api);

      await Promise.all(addresses.slice(1).map((email, i) => register(apiFor(i + 1), email)));
      await waitFor(() => allArrived(smtp.messages, addresses, VERIFY), 60_000, 'the 50 verification mails');

      await Promise.all(addresses.map((email, i) => forgot(apiFor(i + 1), email)));
      await waitFor(() => allArrived(smtp.messages, addresses, RESET), 60_000, 'the 50 reset mails');
      await sleep(SETTLE_MS);

      expect(countsTo(smtp.messages, addresses, RESET), 'reset mails per address').to.deep.equal(once(addresses));
      expect(countsTo(smtp.messages, addresses, VERIFY), 'verification mails per address').to.deep.equal(
        once(addresses),
      );
      expect(smtp.messages).to.have.length(100);
      expect(new Set(smtp.messages.filter((m) => RESET.test(m.subject)).map(linkToken)).size).to.equal(50);
      expect(
        [one, two].every((instance) => instance.child.exitCode === null && instance.child.signalCode === null),
        'both instances still running',
      ).to.equal(true);
    }).finally(() => cluster.destroy());
  });

  /**
   * pg-boss 10 keeps each job name's jobs in a queue that must be made before the first job is sent
   * (PgBossJobs makes it on first use, its scheduler at start). On a new database, two instances
   * started together, answering their first requests at the same moment, make the same queues at
   * once: neither may fail its start or a request for it. The instances run in this process (a
   * child process's start is too uneven to meet the other's within milliseconds), three times over,
   * each time on a new database.
   */
  it('two instances started together on a new PostgreSQL database (3 times): both start, their first requests at once all succeed, each mail once', async function () {
    skipWithoutPostgres(this);
    const cluster = await PgCluster.create();
    const smtp = await startSmtpServer();
    const logs = capturingLogger();
    const services: RunningService[] = [];
    const addresses: string[] = [];
    try {
      for (let round = 1; round <= 3; round += 1) {
        const url = await newDatabase(cluster, `portico_together_${round}`);
        const config = testConfig({
          ...serviceEnv(url, smtp),
          // Straight to this cluster, even when the suite runs behind a pooler.
          SVC_DATABASE_MIGRATION_URL: url,
          SVC_DATABASE_PREPARED_STATEMENTS: 'true',
        });
        const started = await Promise.allSettled([0, 1].map(() => startService(config, { logger: logs.logger })));
        for (const result of started) if (result.status === 'fulfilled') services.push(result.value);
        const failed = started.filter((result) => result.status === 'rejected');
        expect(
          failed.map((result) => String(result.reason)),
          `round ${round}: instances that failed to start`,
        ).to.deep.equal([]);
        const [one, two] = started.map(
          (result) => new Api((result as PromiseFulfilledResult<RunningService>).value.url),
        );
        const roundAddresses = Array.from({ length: 20 }, (_, i) => `together-${round}-${i}@example.com`);
        addresses.push(...roundAddresses);
        const answers = await Promise.all(
          roundAddresses.map((email, i) =>
            (i % 2 === 0 ? one! : two!).post('/api/v1/auth/register', {
              json: { email, password: PASSWORD, first_name: 'First', last_name: 'Requests' },
            }),
          ),
        );
        const refused = answers.filter((answer) => answer.status !== 201);
        expect(
          answers.map((answer) => answer.status),
          `round ${round}: ${refused.length} of 20 first registrations refused: ${refused[0]?.text}`,
        ).to.deep.equal(roundAddresses.map(() => 201));
        await waitFor(
          () => allArrived(smtp.messages, roundAddresses, VERIFY),
          30_000,
          `round ${round}: the verification mails`,
        );
        for (const service of services.splice(0)) await service.stop();
      }
      await sleep(SETTLE_MS);
      expect(countsTo(smtp.messages, addresses, VERIFY), 'verification mails per address').to.deep.equal(
        once(addresses),
      );
    } catch (error) {
      const errors = logs
        .lines()
        .filter((line) => Number(line.level) >= 50)
        .map((line) => JSON.stringify(line).slice(0, 600));
      console.log(`      service errors (${errors.length}, the first 5):\n${errors.slice(0, 5).join('\n')}`);
      throw error;
    } finally {
      for (const service of services) await service.stop();
      await smtp.close();
      await cluster.destroy();
    }
  });
});
