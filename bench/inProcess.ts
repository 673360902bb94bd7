/**
 * Driving a service's request handler in this process, without a socket (bench/layers.ts,
 * bench/ab.ts): each request an `IncomingMessage` handed to the handler as Node's server would, 50
 * at a time, and the CPU time they took (`process.cpuUsage`). The parser and the socket, the same
 * for every handler, are left out.
 */
import { spawn } from 'node:child_process';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { BENCH_JWT } from './fixtures.js';

export type Handle = (req: IncomingMessage, res: ServerResponse) => unknown;

/** One request: method, path, bearer token and, for a write, its JSON body. */
export interface BenchRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly token: string;
  /** A new body per request (a create must not repeat a unique value). */
  readonly body?: () => string;
}

/** One request through `handle`: its status, headers and body once ended. */
export function one(
  handle: Handle,
  request: BenchRequest,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const req = new IncomingMessage(new Socket());
  req.method = request.method;
  req.url = request.path;
  const auth = `Bearer ${request.token}`;
  const body = request.body?.();
  req.headers = { host: 'localhost', authorization: auth, 'user-agent': 'autocannon' };
  req.rawHeaders = ['Host', 'localhost', 'Authorization', auth, 'User-Agent', 'autocannon'];
  if (body !== undefined) {
    const length = String(Buffer.byteLength(body));
    Object.assign(req.headers, { 'content-type': 'application/json', 'content-length': length });
    req.rawHeaders.push('Content-Type', 'application/json', 'Content-Length', length);
    req.push(body);
  }
  req.push(null);
  const res = new ServerResponse(req);
  return new Promise((done) => {
    const end = res.end.bind(res);
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      const ended = (end as (...args: unknown[]) => ServerResponse)(chunk, ...rest);
      done({ status: res.statusCode, headers: res.getHeaders(), body: chunk === undefined ? '' : String(chunk) });
      return ended;
    }) as typeof res.end;
    void handle(req, res);
  });
}

/** CPU µs per request over `count` requests, 50 at a time; every answer must be 2xx. */
export async function round(handle: Handle, request: BenchRequest, count: number): Promise<number> {
  // The garbage of the previous handler is collected before this one starts, not on its time.
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.cpuUsage();
  for (let i = 0; i < count; i += 50) {
    const answers = await Promise.all(Array.from({ length: 50 }, () => one(handle, request)));
    const failed = answers.find((answer) => answer.status < 200 || answer.status > 299);
    if (failed) throw new Error(`answered ${failed.status}: ${failed.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

export const median = (list: readonly number[]): number => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
};

/** The service's settings in the bench (as bench/run.ts sets them) on `databaseUrl`. */
export function benchEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SVC_DATABASE_URL: databaseUrl,
    SVC_RATE_LIMIT_ENABLED: 'false',
    SVC_LOG_LEVEL: 'warn',
    SVC_API_MODE: 'both',
    SVC_SERVER_HOST: '127.0.0.1',
    SVC_SERVER_PORT: '0',
    SVC_AUTH_BCRYPT_COST: '10',
    SVC_SERVER_SHUTDOWN_DELAY: '0s',
    SVC_METRICS_HOST: '127.0.0.1',
    SVC_METRICS_PORT: '0',
    SVC_JWT_SECRET: BENCH_JWT.secret,
    SVC_JWT_ISSUER: BENCH_JWT.issuer,
  };
}

/** The seed (bench/seed.ts) on `env`'s database: the ids of the first products. */
export async function seed(env: NodeJS.ProcessEnv): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/seed.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`bench/seed.ts exited with ${code}`);
  return (JSON.parse(/\{"productIds".*\}/.exec(out)![0]) as { productIds: string[] }).productIds;
}

/** An access token of the bench admin from the service at `url`. */
export async function logIn(url: string, admin: { email: string; password: string }): Promise<string> {
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  return ((await login.json()) as { data: { access_token: string } }).data.access_token;
}
