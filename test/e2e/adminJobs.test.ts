import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import {
  accountWithRole,
  Api,
  dataOf,
  expectError,
  expectInvalidFields,
  expectUnauthorized,
  uniqueEmail,
  type Account,
  type ApiResponse,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { runEntry } from '../support/process.js';

interface JobJson {
  id: string;
  name: string;
  state: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  run_at: string;
  finished_at: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The jobs admin API (docs/jobs.md) end to end: a mail server that is not there makes the account
 * mail fail for good (no retries configured), which an admin lists, retries and removes.
 */
describe('the jobs admin API (end to end)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let admin: Account;
  let moderator: Account;
  let user: Account;
  const address = uniqueEmail('jobs-admin');
  const dir = mkdtempSync(join(tmpdir(), 'portico-jobs-admin-'));
  /** The database, shared with the CLI. */
  const DATABASE = { SVC_DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}` };

  const as = (account: Account, method: string, path: string) =>
    api.send(method, path, { token: account.access_token });
  const list = async (query = ''): Promise<{ jobs: JobJson[]; meta: Record<string, number> }> => {
    const answer = await as(admin, 'GET', `/api/v1/admin/jobs${query}`);
    const jobs = dataOf<JobJson[]>(answer);
    return { jobs, meta: (answer.body as { meta: Record<string, number> }).meta };
  };
  const until = async (check: () => Promise<boolean>) => {
    for (let tries = 0; tries < 200 && !(await check()); tries += 1) await sleep(50);
  };
  const failedMail = async () => (await list('?state=failed&name=mail.send')).jobs;

  before(async () => {
    service = await startService(
      testConfig({
        ...DATABASE,
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        // Nothing listens there: every mail.send run fails, and with no retries the job fails at once.
        SVC_MAIL_SMTP_URL: 'smtp://127.0.0.1:9',
        SVC_JOBS_RETRY_LIMIT: '0',
      }),
      { logger: silentLogger(), smtpTimeoutMs: 500 },
    );
    api = new Api(service.url);
    admin = await accountWithRole(service, api, 'admin');
    moderator = await accountWithRole(service, api, 'moderator');
    user = await accountWithRole(service, api, 'user', { email: address });
    expect((await api.post('/api/v1/auth/password/forgot', { json: { email: address } })).status).to.equal(202);
    await until(async () => (await failedMail()).length === 4);
  });
  after(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the jobs newest first with their state, attempts and last error — never their payloads', async () => {
    const { jobs, meta } = await list('?per_page=100');
    expect(meta).to.include({ page: 1, per_page: 100 });
    expect(jobs.length).to.equal(meta.total);
    const created = jobs.map((job) => Date.parse(job.created_at));
    expect(created).to.deep.equal([...created].sort((a, b) => b - a));
    const failed = await failedMail();
    // Four registrations' verification mails, and the reset mail.
    expect(failed.length).to.be.at.least(4);
    for (const job of failed) {
      expect(Object.keys(job).sort()).to.deep.equal(
        ['attempts', 'created_at', 'finished_at', 'id', 'last_error', 'name', 'run_at', 'state'].sort(),
      );
      expect(job).to.include({ name: 'mail.send', state: 'failed', attempts: 1 });
      expect(job.last_error)
        .to.be.a('string')
        .and.not.match(/\n\s+at /);
      expect(job.finished_at).to.be.a('string');
    }
    // Not the address, not a token: nothing of a payload anywhere in the answer.
    const whole = JSON.stringify(await list('?per_page=100'));
    expect(whole).to.not.include(address);
    expect(whole).to.not.match(/token/i);
    const links = (await list('?name=account.link&state=completed')).jobs;
    expect(links.length).to.be.at.least(4);
    expect(links.every((job) => job.state === 'completed' && job.last_error === null)).to.equal(true);
    const oldestFirst = (await list('?order=asc&per_page=1')).jobs[0]!;
    expect(oldestFirst.created_at <= jobs[jobs.length - 1]!.created_at).to.equal(true);
  });

  it('refuses a state that is not one, and a page out of range, naming the parameter', async () => {
    expectInvalidFields(await as(admin, 'GET', '/api/v1/admin/jobs?state=broken&per_page=500'), ['per_page', 'state']);
  });

  it('runs a failed job again (202), which fails again with the server still down; 409 for one not failed', async () => {
    const [job] = await failedMail();
    const answer = await as(admin, 'POST', `/api/v1/admin/jobs/${job!.id}/retry`);
    expect(answer.status, answer.text).to.equal(202);
    expect(answer.body).to.deep.equal({ success: true, data: null, message: 'the job will run again' });
    const failedAgain = async () => {
      const found = (await failedMail()).find((j) => j.id === job!.id);
      return found !== undefined && found.finished_at !== job!.finished_at ? found : undefined;
    };
    await until(async () => (await failedAgain()) !== undefined);
    const again = (await failedAgain())!;
    expect(again).to.include({ state: 'failed', attempts: 1 });
    expect(Date.parse(again.finished_at!)).to.be.greaterThan(Date.parse(job!.finished_at!));

    const [completed] = (await list('?name=account.link&state=completed')).jobs;
    expectError(
      await as(admin, 'POST', `/api/v1/admin/jobs/${completed!.id}/retry`),
      409,
      'CONFLICT',
      'only a failed job can be retried',
      {
        detail: `id: ${completed!.id}`,
      },
    );
  });

  it('removes a failed job (204), then answers 404 for it; 409 for a completed one; 404 for an unknown or malformed id', async () => {
    const [job] = await failedMail();
    expect((await as(admin, 'DELETE', `/api/v1/admin/jobs/${job!.id}`)).status).to.equal(204);
    expect((await failedMail()).map((j) => j.id)).to.not.include(job!.id);
    expectError(await as(admin, 'DELETE', `/api/v1/admin/jobs/${job!.id}`), 404, 'NOT_FOUND', 'Job not found', {
      detail: `id: ${job!.id}`,
    });
    const [completed] = (await list('?name=account.link&state=completed')).jobs;
    expect((await as(admin, 'DELETE', `/api/v1/admin/jobs/${completed!.id}`)).status).to.equal(409);
    const unknown = randomUUID();
    expectError(await as(admin, 'POST', `/api/v1/admin/jobs/${unknown}/retry`), 404, 'NOT_FOUND', 'Job not found', {
      detail: `id: ${unknown}`,
    });
    expect((await as(admin, 'DELETE', '/api/v1/admin/jobs/not-a-uuid')).status).to.equal(404);
  });

  it('is for admins only: 401 without a token, 403 for a user and a moderator', async () => {
    const [job] = await failedMail();
    const paths: [string, string][] = [
      ['GET', '/api/v1/admin/jobs'],
      ['POST', `/api/v1/admin/jobs/${job!.id}/retry`],
      ['DELETE', `/api/v1/admin/jobs/${job!.id}`],
    ];
    for (const [method, path] of paths) {
      expectUnauthorized(await api.send(method, path), 'missing bearer token');
      for (const account of [user, moderator]) {
        const answer: ApiResponse = await as(account, method, path);
        expect(answer.status, `${account.user.role} ${method} ${path}`).to.equal(403);
      }
    }
    // Nothing happened to the job.
    expect((await failedMail()).find((j) => j.id === job!.id)).to.include({ state: 'failed' });
  });

  describe('the CLI', () => {
    const cli = (...args: string[]) => runEntry('src/main/cli.ts', args, DATABASE);

    it('jobs:list --state failed lists the failed jobs, one line each with the error, never a payload', async () => {
      const failed = await failedMail();
      const run = await cli('jobs:list', '--state', 'failed', '--name', 'mail.send');
      expect(run.code, run.stderr).to.equal(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines.slice(0, -1).map((line) => line.split(/\s+/)[0])).to.deep.equal(failed.map((job) => job.id));
      expect(lines.slice(0, -1).every((line) => /mail\.send\s+failed\s+attempts 1 .* error: \S/.test(line))).to.equal(
        true,
      );
      expect(lines.at(-1)).to.equal(`${failed.length} of ${failed.length} job(s) failed`);
      expect(run.stdout).to.not.include(address);
    });

    it('jobs:retry <id> runs one failed job again; a completed one exits 1; jobs:retry --failed runs them all', async () => {
      const [job, ...others] = await failedMail();
      const one = await cli('jobs:retry', job!.id);
      expect(one.code, one.stderr).to.equal(0);
      expect(one.stdout).to.equal(`job ${job!.id} will run again\n`);
      const [completed] = (await list('?name=account.link&state=completed')).jobs;
      const refused = await cli('jobs:retry', completed!.id);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.include('is not failed');
      expect((await cli('jobs:retry', randomUUID())).code).to.equal(1);
      await until(async () => (await failedMail()).length === others.length + 1);
      const all = await cli('jobs:retry', '--failed');
      expect(all.code, all.stderr).to.equal(0);
      expect(all.stdout).to.match(/^\d+ failed job\(s\) will run again\n$/);
      expect(Number(/^\d+/.exec(all.stdout)![0])).to.be.at.least(others.length);
    });

    it('refuses bad usage with exit 2: an unknown state, both an id and --failed, neither', async () => {
      for (const args of [['jobs:list', '--state', 'gone'], ['jobs:retry'], ['jobs:retry', randomUUID(), '--failed']]) {
        const run = await cli(...args);
        expect(run.code, args.join(' ')).to.equal(2);
        expect(run.stderr).to.include('usage: npm run cli -- jobs:');
      }
    });
  });
});
