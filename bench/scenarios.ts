/**
 * The requests `npm run bench` drives (bench/run.ts), one description each, in a module of their
 * own so that a test can send the bench's very requests.
 */
import { BENCH_ADMIN } from './fixtures.js';

export interface Scenario {
  name: string;
  label: string;
  /** bench/sameWork.ts answers it too. */
  sameWork?: boolean;
  /** Each request adds a row: two answers differ by id and timestamps, so they are not compared at bench time. */
  creates?: boolean;
  request: (ctx: { token: string; productId: string }) => {
    method: 'GET' | 'POST';
    path: string;
    body?: string;
    headers?: Record<string, string>;
  };
}

export const json = { 'content-type': 'application/json' };
/**
 * The scenarios, in the order they run. `create` comes after every read of the table: it adds
 * thousands of products, which would make the list and GraphQL rows measure a bigger table than the
 * 1,000 the seed wrote (and counting it).
 */
export const SCENARIOS: Scenario[] = [
  { name: 'health', label: 'GET /health/live', request: () => ({ method: 'GET', path: '/health/live' }) },
  {
    name: 'product',
    sameWork: true,
    label: 'GET /api/v1/products/{id} (auth)',
    request: ({ token, productId }) => ({
      method: 'GET',
      path: `/api/v1/products/${productId}`,
      headers: { authorization: `Bearer ${token}` },
    }),
  },
  {
    name: 'list',
    sameWork: true,
    label: 'GET /api/v1/products?per_page=20 (auth)',
    request: ({ token }) => ({
      method: 'GET',
      path: '/api/v1/products?per_page=20',
      headers: { authorization: `Bearer ${token}` },
    }),
  },
  {
    name: 'graphql',
    sameWork: true,
    label: 'GraphQL products (20 items, auth)',
    request: ({ token }) => ({
      method: 'POST',
      path: '/graphql',
      headers: { ...json, authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query:
          '{ products(pagination: {limit: 20}) { data { id name price createdAt updatedAt } pagination { totalRecords } } }',
      }),
    }),
  },
  {
    name: 'create',
    sameWork: true,
    creates: true,
    label: 'POST /api/v1/products (auth)',
    request: ({ token }) => ({
      method: 'POST',
      path: '/api/v1/products',
      headers: { ...json, authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'Benchmark created product', price: 12.5 }),
    }),
  },
  {
    name: 'login',
    label: 'POST /api/v1/auth/login',
    request: () => ({ method: 'POST', path: '/api/v1/auth/login', headers: json, body: JSON.stringify(BENCH_ADMIN) }),
  },
];

/** The caller's own profile ("GET /me"): measured by the capacity part (bench/capacity.ts), not in the table. */
export const PROFILE: Scenario = {
  name: 'profile',
  label: 'GET /api/v1/profile (auth)',
  request: ({ token }) => ({ method: 'GET', path: '/api/v1/profile', headers: { authorization: `Bearer ${token}` } }),
};

/**
 * The table's rows beside the product GET by id (bench/run.ts, `--scenario cached,replica`): the
 * same authenticated GET by id of the bench's cached twin (bench/cachedProducts.ts), served from
 * the shared cache, in memory and with Redis; and the product GET by id on a service given a
 * streaming replica (PostgreSQL, `database.replica_urls`).
 */
export const CACHED: Scenario = {
  name: 'cached',
  label: 'GET /api/v1/cached-products/{id} (auth, cached)',
  request: ({ token, productId }) => ({
    method: 'GET',
    path: `/api/v1/cached-products/${productId}`,
    headers: { authorization: `Bearer ${token}` },
  }),
};
export const REPLICA: Scenario = {
  name: 'replica',
  label: 'GET /api/v1/products/{id} (auth)',
  request: (ctx) => SCENARIOS.find((s) => s.name === 'product')!.request(ctx),
};
