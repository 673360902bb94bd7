import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The parent's environment without its SVC_ settings (SVC_TEST_* kept), so a child sees only
 * the configuration the test gives it — and ephemeral ports for the API and the metrics unless the
 * test names others: a child never listens on the service's fixed ports (8080, 9464), which a
 * running `npm start` or a second checkout's tests may hold (docs/testing.md).
 */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { SVC_SERVER_PORT: '0', SVC_METRICS_PORT: '0' };
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('SVC_') || name.startsWith('SVC_TEST_')) env[name] = value;
  return { ...env, ...extra };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point of the project with tsx, like `npm start` / `npm run cli` do. */
export function runEntry(
  entry: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<Finished> {
  return runCommand(process.cwd(), process.execPath, ['--import', 'tsx', entry, ...args], env, timeoutMs);
}

/**
 * Runs `command args` in `cwd` to its end, with the test's environment less its SVC_ settings plus
 * `env` — or, with `exactEnv`, with `env` and nothing else (killed after `timeoutMs`).
 */
export function runCommand(
  cwd: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  options: { exactEnv?: boolean } = {},
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const childEnvironment = options.exactEnv ? env : childEnv(env as Record<string, string>);
    const child = spawn(command, args, { cwd, env: childEnvironment, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running entry and resolves once its stdout matches `ready`. */
export function startEntry(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 30_000,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: process.cwd(),
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} not ready in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = out.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => out });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before it was ready:\n${out}`));
    });
  });
}

/** A user made by the CLI (`users:create`, the way to make the first admin) on the database of `env`; fails the test on an error. */
export async function createUserByCli(
  env: Record<string, string>,
  user: { email: string; password: string; role: string; firstName?: string; lastName?: string },
): Promise<void> {
  const args = ['users:create', '--email', user.email, '--password', user.password];
  args.push('--first-name', user.firstName ?? 'Cli', '--last-name', user.lastName ?? 'User', '--role', user.role);
  const made = await runEntry('src/main/cli.ts', args, env);
  if (made.code !== 0) throw new Error(`users:create exited ${made.code}: ${made.stderr}`);
}
