/**
 * Deep pages versus the first page: seeds 10,000 products and times `GET /api/v1/products`
 * page 1 and page 500 (per_page 20) over HTTP, for each sort, on SQLite (file) and on
 * PostgreSQL when SVC_TEST_POSTGRES_URL is set. Prints medians in milliseconds.
 *   node --import tsx bench/pagination.ts [--rounds 50]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../src/main/config/loadConfig.js';
import { startService, type RunningService } from '../src/main/wiring/service.js';
import { productInput } from '../test/support/resources/product.js';
import { reseedProducts } from './fixtures.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '50' } } });
const ROUNDS = Number(values.rounds);
const TOTAL = 10_000;

function config(databaseUrl: string) {
  const loaded = loadConfig({
    env: {
      SVC_DATABASE_URL: databaseUrl,
      SVC_SERVER_PORT: '0',
      SVC_SERVER_HOST: '127.0.0.1',
      SVC_RATE_LIMIT_ENABLED: 'false',
      SVC_AUTH_BCRYPT_COST: '4',
    },
    readFile: () => undefined,
  });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  return loaded.config;
}

async function seed(service: RunningService): Promise<void> {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const rows = Array.from({ length: TOTAL }, (_, n) => {
    const at = new Date(start + Math.floor(n / 3) * 1000);
    return {
      ...productInput,
      id: randomUUID(),
      name: `Product ${n % 997}`,
      price: 1 + (n % 250),
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
  });
  await reseedProducts(service.database, rows);
  // Measure the table as autovacuum leaves it a minute later (visibility map set, statistics fresh),
  // not in the seconds after a bulk load.
  if (service.database.target.kind === 'postgres') await service.database.sql.run('vacuum analyze products');
}

async function token(service: RunningService): Promise<string> {
  const email = `bench-${randomUUID()}@example.com`;
  const register = await fetch(`${service.url}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'bench-password', first_name: 'Bench', last_name: 'Mark' }),
  });
  return ((await register.json()) as { data: { access_token: string } }).data.access_token;
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function time(url: string, bearer: string): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await fetch(url, { headers: { authorization: `Bearer ${bearer}` } });
  const body = (await res.json()) as { data: unknown[] };
  if (res.status !== 200 || body.data.length !== 20) throw new Error(`unexpected answer ${res.status} for ${url}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function measure(label: string, databaseUrl: string): Promise<void> {
  const service = await startService(config(databaseUrl), { logger: pino({ level: 'warn' }) });
  try {
    await seed(service);
    const bearer = await token(service);
    for (const [sort, order] of [
      ['created_at', 'desc'],
      ['price', 'asc'],
      ['name', 'asc'],
      ['updated_at', 'desc'],
    ] as const) {
      const first: number[] = [];
      const deep: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        first.push(await time(`${service.url}/api/v1/products?page=1&per_page=20&sort=${sort}&order=${order}`, bearer));
        deep.push(
          await time(`${service.url}/api/v1/products?page=500&per_page=20&sort=${sort}&order=${order}`, bearer),
        );
      }
      const [a, b] = [median(first), median(deep)];
      console.log(
        `${label.padEnd(10)} sort=${`${sort} ${order}`.padEnd(16)} page 1: ${a.toFixed(2)} ms   page 500: ${b.toFixed(2)} ms   ratio ${(b / a).toFixed(2)}`,
      );
    }
  } finally {
    await service.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'portico-pages-'));
try {
  await measure('sqlite', `sqlite:${join(dir, 'pages.sqlite')}`);
  const pg = process.env.SVC_TEST_POSTGRES_URL;
  if (pg) await measure('postgresql', pg);
  else console.log('postgresql: skipped (set SVC_TEST_POSTGRES_URL)');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
