import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { withModules } from '../../src/main/cli/command.js';
import { UserTokens } from '../../src/main/modules/identityTokens.js';
import { startService } from '../../src/main/wiring/service.js';
import { startProcess } from '../../src/main/wiring/startup.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { startEntry } from '../support/process.js';

/**
 * One start-up path (ARCHITECTURE rule 19): the server, the worker and the CLI start through the
 * same ordered list of steps (`startProcess`), each taking as much of it as its options ask.
 */
describe('one start-up path: the server, the worker and the CLI take the same steps, as far as their options ask', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-startup-'));
  const database = (name: string) => ({ SVC_DATABASE_URL: `sqlite:${join(dir, `${name}.sqlite`)}` });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a command (listen false) starts the steps up to the container, and nothing that listens or runs jobs', async () => {
    const names: string[] = [];
    const command = await startProcess(testConfig(database('command')), {
      listen: false,
      logger: silentLogger(),
      onStep: (name) => names.push(name),
    });
    await command.stop();
    expect(names).to.deep.equal([
      'mailer',
      'database',
      'migrations',
      'cache',
      'access policy',
      'redis',
      'access policy sync',
      'event loop monitor',
      'tracing',
      'jobs',
      'container',
    ]);
  });

  it('a database-only command starts the database and its migrations, nothing else', async () => {
    const names: string[] = [];
    const opened = await startProcess(testConfig(database('only')), {
      listen: false,
      databaseOnly: true,
      migrate: true,
      logger: silentLogger(),
      onStep: (name) => names.push(name),
    });
    try {
      expect(opened.migrated).to.include('Migration0001Users');
    } finally {
      await opened.stop();
    }
    expect(names).to.deep.equal(['database', 'migrations']);
  });

  it('the CLI takes its use cases from the modules: a user users:create’s CreateUser makes logs in to the service', async () => {
    const config = testConfig({ ...database('cli'), SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' });
    const made = await withModules(config, ({ container }) =>
      container.get(UserTokens.CreateUser).execute({
        email: 'root@example.com',
        password: 'root password 1',
        firstName: 'Root',
        lastName: 'Admin',
        role: 'admin',
      }),
    );
    expect(made).to.include({ email: 'root@example.com', role: 'admin', emailVerified: true });
    const service = await startService(config, { logger: silentLogger() });
    try {
      const login = await fetch(`${service.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'root@example.com', password: 'root password 1' }),
      });
      expect(login.status).to.equal(200);
      expect(((await login.json()) as { data: { user: { id: string } } }).data.user.id).to.equal(made.id);
    } finally {
      await service.stop();
    }
  });

  it('the worker is started by an option, not by the environment: it runs jobs and serves only health', async () => {
    const before = process.env.SVC_JOBS_MODE;
    const config = testConfig(database('worker'));
    expect(config.jobs.mode, 'the configuration says both').to.equal('both');
    const worker = await startService(config, { jobs: 'worker', logger: silentLogger() });
    try {
      expect(process.env.SVC_JOBS_MODE, 'the environment is left as it was').to.equal(before);
      expect(worker.config.jobs.mode).to.equal('worker');
      expect((await fetch(`${worker.url}/health/live`)).status).to.equal(200);
      expect((await fetch(`${worker.url}/api/v1/auth/login`, { method: 'POST' })).status).to.equal(404);
    } finally {
      await worker.stop();
    }
  });

  it('`npm run worker` says it runs jobs and where its health paths are, not that it serves an API', async () => {
    const { child, output } = await startEntry(
      'src/main/worker.ts',
      {
        ...database('worker-entry'),
        SVC_SERVER_PORT: '0',
        SVC_SERVER_HOST: '127.0.0.1',
        SVC_METRICS_PORT: '0',
        SVC_METRICS_HOST: '127.0.0.1',
        SVC_LOG_LEVEL: 'warn',
      },
      /^Portico worker .*\n/m,
    );
    try {
      const line = output()
        .split('\n')
        .find((text) => text.startsWith('Portico worker'))!;
      expect(line).to.match(
        /^Portico worker running jobs \(4 at a time\), health paths on (http:\/\/127\.0\.0\.1:\d+) \(database: sqlite \S+worker-entry\.sqlite, env: development\)$/,
      );
      expect(output()).not.to.match(/listening on|api: /);
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1]!;
      expect((await fetch(`${url}/health/live`)).status).to.equal(200);
      expect((await fetch(`${url}/api/v1/auth/login`, { method: 'POST' })).status).to.equal(404);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    }
  });
});
