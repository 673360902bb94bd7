import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './faults.js';
import { freePort } from './ports.js';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * Debian's PgBouncer (1.18) as teams run it: transaction pooling, default settings otherwise, in
 * front of the PostgreSQL server of `postgresUrl`, on a loopback port of its own. Started as the
 * `postgres` user when the tests run as root (PgBouncer refuses to run as root).
 */
export class PgBouncer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
  ) {}

  static available(): boolean {
    return existsSync(PGBOUNCER);
  }

  static async start(postgresUrl: string): Promise<PgBouncer> {
    const server = new URL(postgresUrl);
    const dir = mkdtempSync(join(tmpdir(), 'portico-pgbouncer-'));
    const port = await freePort();
    writeFileSync(join(dir, 'userlist.txt'), `"${decodeURIComponent(server.username) || 'postgres'}" ""\n`);
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        'max_client_conn = 1000',
        'default_pool_size = 20',
        `logfile = ${join(dir, 'pgbouncer.log')}`,
        '',
      ].join('\n'),
    );
    const root = process.getuid?.() === 0;
    if (root) chownSync(dir, await uidOf('postgres'), await gidOf('postgres'));
    const args = [...(root ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')];
    const child = spawn(PGBOUNCER, args, { stdio: 'ignore' });
    const bouncer = new PgBouncer(child, dir, port);
    await waitFor(() => canConnect(port), 10_000, 'pgbouncer listening');
    return bouncer;
  }

  /** `postgresUrl` with the pooler's port in place of the server's. */
  url(postgresUrl: string): string {
    const url = new URL(postgresUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function idOf(flag: '-u' | '-g', user: string): Promise<number> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) =>
    execFile('id', [flag, user], (error, stdout) => (error ? reject(error) : resolve(Number(stdout.trim())))),
  );
}
const uidOf = (user: string) => idOf('-u', user);
const gidOf = (user: string) => idOf('-g', user);

async function canConnect(port: number): Promise<boolean> {
  const { createConnection } = await import('node:net');
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
