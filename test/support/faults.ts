import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

/**
 * Real dependencies a fault test may break on purpose: a PostgreSQL cluster of its own (stopped,
 * started, frozen with SIGSTOP), a Redis server of its own, a small file system that fills up.
 * Never the shared test servers, which other suites use.
 */

const run = promisify(execFile);

export async function waitFor(
  predicate: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} not met within ${timeoutMs} ms`);
}

/** The PostgreSQL server binaries of the newest installed version, or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Runs a PostgreSQL tool as the `postgres` user when we are root (initdb refuses root). */
async function asPostgres(bin: string, args: string[]): Promise<string> {
  const [file, all] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const { stdout } = await run(file, all, { timeout: 60_000 });
  return stdout;
}

/** A throwaway PostgreSQL cluster on a free loopback port. */
export class PgCluster {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    readonly port: number,
  ) {}

  static async create(): Promise<PgCluster> {
    const bin = postgresBin();
    if (!bin) throw new Error('PostgreSQL server binaries are not installed');
    const dir = mkdtempSync(join(tmpdir(), 'portico-pg-fault-'));
    if (isRoot()) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    await asPostgres(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync']);
    const cluster = new PgCluster(bin, dir, await freePort());
    await cluster.start();
    await asPostgres(join(bin, 'createdb'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(cluster.port),
      '-U',
      'postgres',
      'portico',
    ]);
    return cluster;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/portico`;
  }

  async start(): Promise<void> {
    await asPostgres(join(this.bin, 'pg_ctl'), [
      '-D',
      join(this.dir, 'data'),
      '-l',
      join(this.dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-c listen_addresses=127.0.0.1 -p ${this.port} -k ${this.dir} -c fsync=off -c max_connections=50`,
      'start',
    ]);
  }

  /** A fast shutdown: connections are ended, new ones refused. */
  async stop(): Promise<void> {
    await asPostgres(join(this.bin, 'pg_ctl'), ['-D', join(this.dir, 'data'), '-m', 'fast', '-w', 'stop']);
  }

  /** The server and every backend process, frozen (SIGSTOP) or thawed (SIGCONT). */
  async signal(signal: 'SIGSTOP' | 'SIGCONT'): Promise<void> {
    const pid = Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(pid)]);
    const pids = [
      pid,
      ...stdout
        .split('\n')
        .map((l) => Number(l.trim()))
        .filter((n) => n > 0),
    ];
    for (const p of pids) {
      try {
        process.kill(p, signal);
      } catch {
        // a backend that ended meanwhile
      }
    }
  }

  async destroy(): Promise<void> {
    await this.signal('SIGCONT').catch(() => undefined);
    await this.stop().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A throwaway Redis server on a fixed loopback port, which can be killed and started again. */
export class RedisProcess {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async create(): Promise<RedisProcess> {
    const redis = new RedisProcess(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (/Ready to accept connections/.test(out)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
      child.once('error', reject);
    });
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return; // already gone
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** A small tmpfs mounted for one test, or the reason none can be mounted here. */
export class SmallFileSystem {
  private constructor(readonly path: string) {}

  static async mount(sizeBytes: number): Promise<SmallFileSystem | string> {
    if (!isRoot()) return 'mounting a small file system needs root';
    const path = mkdtempSync(join(tmpdir(), 'portico-tmpfs-'));
    try {
      await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', path]);
    } catch (error) {
      rmSync(path, { recursive: true, force: true });
      return `cannot mount a tmpfs here (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
    }
    return new SmallFileSystem(path);
  }

  dir(name: string): string {
    const path = join(this.path, name);
    mkdirSync(path, { recursive: true });
    return path;
  }

  async unmount(): Promise<void> {
    await run('umount', ['-l', this.path]).catch(() => undefined);
    rmSync(this.path, { recursive: true, force: true });
  }
}
