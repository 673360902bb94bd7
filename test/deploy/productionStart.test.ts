import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCommand, type Finished } from '../support/process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { copies, parseDockerfile, readRepoFile, type Stage } from './dockerfile.js';

/**
 * The image's start path without a container engine: the Dockerfile's build stage (its COPY
 * sources, `npm run build`), then its runtime stage (its COPY sources, dist from the build,
 * `npm ci --omit=dev --ignore-scripts`), then what an operator runs in the container —
 * `node dist/src/main/cli.js migrate`, `users:create`, `node dist/src/main/server.js` — with
 * NODE_ENV=production, SVC_ENV=production, no NODE_OPTIONS and no tsx anywhere.
 */

const root = process.cwd();
const SECRET = 'prod-start-test-secret-0123456789abcdef';

/** The environment a container gets: PATH and HOME, plus what the test passes — nothing inherited (no NODE_OPTIONS, no SVC_). */
function containerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

/**
 * npm keeps the machine's own settings (registry, cache, proxy) and nothing else: under `npm test`
 * the environment also carries npm_config_local_prefix and the like, which point at this repository.
 */
const NPM_SETTINGS =
  /^(npm_config_(cache|userconfig|globalconfig|registry|cafile|proxy|https_proxy|noproxy)|https?_proxy|no_proxy)$/i;
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const [name, value] of Object.entries(process.env)) if (NPM_SETTINGS.test(name)) env[name] = value;
  return env;
}

/** Runs to its end with exactly `env` (the container's environment, or npm's own settings). */
const run = (
  cwd: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Finished> => runCommand(cwd, command, args, env, timeoutMs, { exactEnv: true });

/** Copies a stage's COPY sources from the repository into `target` (as `COPY src dest` does with WORKDIR `target`). */
function copyFromContext(stage: Stage, target: string): void {
  for (const copy of copies(stage).filter((c) => c.from === undefined)) {
    for (const source of copy.sources) {
      const destination =
        copy.destination.endsWith('/') || copy.sources.length > 1
          ? join(target, copy.destination, source.split('/').at(-1)!)
          : join(target, copy.destination);
      mkdirSync(dirname(destination), { recursive: true });
      cpSync(join(root, source), destination, { recursive: true });
    }
  }
}

describe('the production start path, as the image runs it (README: Running in production)', function () {
  this.timeout(600_000);

  const stages = parseDockerfile(readRepoFile(root, 'Dockerfile'));
  const build = stages[0]!;
  const runtime = stages.at(-1)!;
  let scratch: string;
  let app: string;
  let server: ChildProcess | undefined;
  let smtp: TestSmtpServer;

  before(async function () {
    smtp = await startSmtpServer();
    scratch = mkdtempSync(join(tmpdir(), 'portico-image-'));
    // The build stage: its sources, the repository's (dev) dependencies, `npm run build`.
    const buildDir = join(scratch, 'build');
    mkdirSync(buildDir);
    copyFromContext(build, buildDir);
    symlinkSync(realpathSync(join(root, 'node_modules')), join(buildDir, 'node_modules'), 'dir');
    const built = await run(buildDir, 'npm', ['run', 'build'], npmEnv(), 300_000);
    expect(built.code, `npm run build in the build stage\n${built.stdout}\n${built.stderr}`).to.equal(0);

    // The runtime stage: its sources, dist from the build stage, and its own `npm ci` line.
    app = join(scratch, 'app');
    mkdirSync(app);
    copyFromContext(runtime, app);
    const dist = copies(runtime).find((c) => c.from === build.name)!;
    cpSync(join(buildDir, 'dist'), join(app, dist.destination), { recursive: true });
    const install = runtime.instructions.find((i) => i.keyword === 'RUN' && /^npm ci\b/.test(i.text))!;
    const npmArgs = install.text.split('&&')[0]!.trim().split(/\s+/).slice(1);
    const installed = await run(app, 'npm', [...npmArgs, '--prefer-offline'], npmEnv(), 300_000);
    expect(installed.code, `npm ${npmArgs.join(' ')}\n${installed.stdout}\n${installed.stderr}`).to.equal(0);
  });

  after(async () => {
    await smtp?.close();
    server?.kill('SIGKILL');
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const production = (extra: Record<string, string> = {}) =>
    containerEnv({
      NODE_ENV: 'production',
      SVC_ENV: 'production',
      SVC_JWT_SECRET: SECRET,
      SVC_SECRETS_ENCRYPTION_KEY: 'the production start test key, 32+ bytes',
      SVC_STORAGE_SIGNING_SECRET: 'the production start test file-link secret',
      SVC_MAIL_SMTP_URL: smtp.url,
      SVC_MAIL_LINK_BASE_URL: 'https://app.example.com',
      SVC_LOG_LEVEL: 'warn',
      ...extra,
    });

  it('installs no dev dependency: no tsx, no TypeScript, nothing the lock marks dev', () => {
    expect(existsSync(join(app, 'node_modules', 'tsx')), 'tsx installed').to.be.false;
    expect(existsSync(join(app, 'node_modules', 'typescript')), 'typescript installed').to.be.false;
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev === true)
      .map(([path]) => path);
    expect(devOnly, 'the lock marks dev packages').to.include('node_modules/tsx');
    expect(devOnly.filter((path) => existsSync(join(app, path)))).to.deep.equal([]);
    expect(existsSync(join(app, 'src')), 'no TypeScript sources in the image').to.be.false;
  });

  it('migrates, creates the first admin, serves /health/ready and logs that admin in — from dist with production dependencies only', async () => {
    const migrate = await run(app, process.execPath, ['dist/src/main/cli.js', 'migrate'], production(), 120_000);
    expect(migrate.code, migrate.stderr).to.equal(0);
    expect(migrate.stdout).to.match(/applied \d+ migration/);
    expect(existsSync(join(app, 'data', 'portico.sqlite')), 'the default SQLite file, in the working folder').to.be
      .true;

    const email = 'ops@example.com';
    const password = 'Sturdy-passw0rd!';
    const create = await run(
      app,
      process.execPath,
      [
        'dist/src/main/cli.js',
        'users:create',
        '--email',
        email,
        '--password',
        password,
        '--first-name',
        'Olive',
        '--last-name',
        'Ops',
        '--role',
        'admin',
      ],
      production(),
      120_000,
    );
    expect(create.code, create.stderr).to.equal(0);
    expect(create.stdout).to.include(email);

    const child = spawn(process.execPath, ['dist/src/main/server.js'], {
      cwd: app,
      // Port 0: a free port (the image listens on 8080); the metrics listener likewise, once it exists.
      env: production({
        SVC_SERVER_HOST: '127.0.0.1',
        SVC_SERVER_PORT: '0',
        SVC_METRICS_PORT: '0',
        SVC_DATABASE_MIGRATE_ON_START: 'false',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = child;
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening in 60 s:\n${output}`)), 60_000);
      const onData = (d: Buffer) => {
        output += d.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!.replace('localhost', '127.0.0.1'));
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      void exited.then((code) => reject(new Error(`server exited with ${code}:\n${output}`)));
    });
    expect(output).to.include('env: production');

    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status, await ready.clone().text()).to.equal(200);
    expect(((await ready.json()) as { status: string }).status).to.equal('up');

    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const body = (await login.json()) as { success: boolean; data: { access_token: string; user: { role: string } } };
    expect(login.status, JSON.stringify(body)).to.equal(200);
    expect(body.data.user.role).to.equal('admin');
    const me = await fetch(`${url}/api/v1/profile`, { headers: { authorization: `Bearer ${body.data.access_token}` } });
    expect(me.status).to.equal(200);

    child.kill('SIGTERM');
    expect(await exited, `graceful stop on SIGTERM (the container's stop signal)\n${output}`).to.equal(0);
    server = undefined;
    expect(output).to.not.match(/^\s+at /m);
  });

  it('prints the API document from dist with the package version (the CLI reads package.json beside dist)', async () => {
    const printed = await run(app, process.execPath, ['dist/src/main/cli.js', 'openapi'], production(), 60_000);
    expect(printed.code, printed.stderr).to.equal(0);
    const document = JSON.parse(printed.stdout) as { info: { version: string } };
    const pkg = JSON.parse(readRepoFile(root, 'package.json')) as { version: string };
    expect(document.info.version).to.equal(pkg.version);
  });
});
