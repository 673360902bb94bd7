import { randomUUID } from 'node:crypto';
import { createServer as createNetServer, connect } from 'node:net';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { TOKENS } from '../../src/main/wiring/tokens.js';
import { accountWithRole, Api, dataOf, refresh, register, type Account } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { jobsSettled } from '../support/jobs.js';
import { graphql } from '../support/graphql.js';
import { silentLogger } from '../support/logger.js';
import { promtool, promtoolCheck, samples, scrape, valueOf } from '../support/metrics.js';
import { PRODUCT_BODY, PRODUCT_INPUT } from '../support/resources/productBodies.js';

const PRODUCT_ROUTE = '/api/v1/products/:id';

/** A port nothing listens on (taken from the kernel, then released). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('metrics (end to end)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let moderator: Account;
  let productId: string;
  const scrapeIt = () => scrape(service.metricsUrl);

  before(async () => {
    service = await startService(
      testConfig({
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_API_MODE: 'both',
        SVC_AUTH_LOGIN_MAX_FAILURES: '2',
      }),
      { logger: silentLogger() },
    );
    api = new Api(service.url);
    moderator = await accountWithRole(service, api, 'moderator');
    productId = dataOf<{ id: string }>(
      await api.post('/api/v1/products', {
        token: moderator.access_token,
        json: { ...PRODUCT_BODY, name: 'Metered', price: 3 },
      }),
      201,
    ).id;
  });
  after(async () => service.stop());

  it('serves GET /metrics on its own listener, and the public port has no /metrics', async () => {
    expect(service.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(service.metricsUrl!).port).not.to.equal(new URL(service.url).port);
    const text = await scrapeIt();
    expect(text).to.include('# TYPE http_requests_total counter');
    expect(text).to.include('# TYPE http_request_duration_seconds histogram');
    expect(text).to.include('# TYPE http_requests_in_flight gauge');
    // prom-client's default process metrics
    expect(text).to.include('# TYPE process_cpu_user_seconds_total counter');
    expect(text).to.include('# TYPE nodejs_eventloop_lag_seconds gauge');
    const publicPage = await api.get('/metrics');
    expect(publicPage.status).to.equal(404);
    expect(publicPage.text).not.to.include('http_requests_total');
  });

  it('the metrics listener also serves the three health paths, as the public port answers them', async () => {
    const base = service.metricsUrl!.replace(/\/metrics$/, '');
    for (const path of ['/health/live', '/health/ready', '/health']) {
      const [there, here] = [await fetch(`${base}${path}`), await fetch(`${service.url}${path}`)];
      expect(there.status, path).to.equal(200);
      expect(there.headers.get('cache-control'), path).to.equal('no-store');
      expect(there.headers.get('x-content-type-options'), path).to.equal('nosniff');
      const [a, b] = [(await there.json()) as { status: string }, (await here.json()) as { status: string }];
      expect(a.status, path).to.equal(b.status);
    }
  });

  it('anything but GET /metrics and the health paths on the metrics listener is 404', async () => {
    const base = service.metricsUrl!.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/`)).status).to.equal(404);
    expect((await fetch(`${base}/metrics/x`)).status).to.equal(404);
    expect((await fetch(`${base}/api/v1/products`)).status).to.equal(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).to.equal(404);
  });

  it('its answers carry the security headers, as every answer of the service does (README: Metrics and Tracing)', async () => {
    const base = service.metricsUrl!.replace(/\/metrics$/, '');
    for (const answer of [await fetch(service.metricsUrl!), await fetch(`${base}/nope`)]) {
      expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(answer.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(answer.headers.get('x-frame-options')).to.equal('DENY');
      await answer.arrayBuffer();
    }
  });

  it('counts jobs stored and runs ended by name and outcome, with durations, and reads the waiting gauges from the store', async () => {
    const jobs = service.container.get(TOKENS.JobAdmin);
    const settled = () => jobsSettled(jobs);
    await settled();
    const before = await scrapeIt();
    expect((await api.post('/api/v1/auth/password/forgot', { json: { email: moderator.user.email } })).status).to.equal(
      202,
    );
    await settled();
    const after = await scrapeIt();
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    // account.link (the request's), then mail.send (the link's): each stored once, run once.
    for (const name of ['account.link', 'mail.send']) {
      expect(delta('jobs_enqueued_total', { name }), name).to.equal(1);
      expect(delta('jobs_finished_total', { name, outcome: 'completed' }), name).to.equal(1);
      expect(delta('jobs_duration_seconds_count', { name }), name).to.equal(1);
    }
    expect(samples(after, 'jobs_finished_total').some((line) => line.includes('outcome="failed"'))).to.equal(false);
    expect(valueOf(after, 'jobs_oldest_waiting_seconds')).to.equal(0);
    // A job waiting (due, no runner for it): the gauge counts it, and forgets nothing once it is gone.
    const id = (await service.container.get(TOKENS.JobQueue).enqueue({ name: 'metrics.idle', payload: {} }))!;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const waiting = await scrapeIt();
    expect(valueOf(waiting, 'jobs_waiting', { name: 'metrics.idle' })).to.equal(1);
    expect(valueOf(waiting, 'jobs_oldest_waiting_seconds')).to.be.greaterThan(0);
    expect(valueOf(waiting, 'jobs_enqueued_total', { name: 'metrics.idle' })).to.equal(1);
    expect(await jobs.remove(id)).to.equal('removed');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(valueOf(await scrapeIt(), 'jobs_waiting', { name: 'metrics.idle' })).to.equal(0);
  });

  it('counts answers by method, matched route pattern and status, with their durations', async () => {
    const before = await scrapeIt();
    const ok = { method: 'GET', route: PRODUCT_ROUTE, status: '200' };
    const missing = { method: 'GET', route: PRODUCT_ROUTE, status: '404' };
    for (let i = 0; i < 3; i += 1)
      expect((await api.get(`/api/v1/products/${productId}`, { token: moderator.access_token })).status).to.equal(200);
    expect((await api.get(`/api/v1/products/${randomUUID()}`, { token: moderator.access_token })).status).to.equal(404);
    expect((await api.get('/api/v1/products/not-a-uuid', { token: moderator.access_token })).status).to.equal(404);
    expect((await api.get(`/api/v1/products/${productId}`)).status).to.equal(401);
    expect((await api.get('/health/live')).status).to.equal(200);
    const after = await scrapeIt();
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('http_requests_total', ok)).to.equal(3);
    expect(delta('http_requests_total', missing)).to.equal(2);
    expect(delta('http_requests_total', { ...ok, status: '401' })).to.equal(1);
    expect(delta('http_requests_total', { method: 'GET', route: '/health/live', status: '200' })).to.equal(1);
    expect(delta('http_request_duration_seconds_count', ok)).to.equal(3);
    expect(valueOf(after, 'http_request_duration_seconds_sum', ok)).to.be.greaterThan(0);
    expect(valueOf(after, 'http_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).to.equal(
      valueOf(after, 'http_requests_total', ok),
    );
    // Never the raw path.
    expect(after).not.to.include(productId);
    expect(after).not.to.include('not-a-uuid');
    expect(valueOf(after, 'http_requests_in_flight')).to.equal(0);
  });

  it('a flood of 200 random paths adds no series: they are all "unmatched"', async () => {
    const before = await scrapeIt();
    const paths = Array.from({ length: 200 }, (_, i) => `/${randomUUID()}/${i}${i % 3 === 0 ? '?q=1' : ''}`);
    for (let i = 0; i < paths.length; i += 20) {
      const answers = await Promise.all(paths.slice(i, i + 20).map((path) => api.get(path)));
      for (const answer of answers) expect(answer.status).to.equal(404);
    }
    const after = await scrapeIt();
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    expect(
      valueOf(after, 'http_requests_total', unmatched) - valueOf(before, 'http_requests_total', unmatched),
    ).to.equal(200);
    const series = (text: string) => samples(text, 'http_requests_total').map((line) => line.replace(/ \S+$/, ''));
    expect(series(after)).to.have.members(
      series(before).includes(`http_requests_total{method="GET",route="unmatched",status="404"}`)
        ? series(before)
        : [...series(before), `http_requests_total{method="GET",route="unmatched",status="404"}`],
    );
    expect(after).not.to.include(paths[0]!.split('/')[1]!);
  });

  it('counts GraphQL operations by name, kind and outcome', async () => {
    const before = await scrapeIt();
    const token = moderator.access_token;
    const named = await graphql(
      service.url,
      `
        query ProductName($id: ID!) {
          product(id: $id) {
            name
          }
        }
      `,
      { token, variables: { id: productId } },
    );
    expect(named.body.errors).to.equal(undefined);
    const failing = await graphql(
      service.url,
      `
        query ProductName($id: ID!) {
          product(id: $id) {
            name
          }
        }
      `,
      { token, variables: { id: randomUUID() } },
    );
    expect(failing.body.errors).to.have.length.greaterThan(0);
    const anonymous = await graphql(
      service.url,
      `
        {
          products(pagination: { limit: 1 }) {
            data {
              id
            }
          }
        }
      `,
      { token },
    );
    expect(anonymous.body.errors).to.equal(undefined);
    const mutation = await graphql(
      service.url,
      `
        mutation AddOne($input: CreateProductInput!) {
          createProduct(input: $input) {
            __typename
          }
        }
      `,
      { token, variables: { input: { ...PRODUCT_INPUT, name: 'By GraphQL', price: 2 } } },
    );
    expect(mutation.body.errors, JSON.stringify(mutation.body.errors)).to.equal(undefined);
    const unparsable = await graphql(service.url, `query Broken { products(`, { token });
    expect(unparsable.body.errors).to.have.length.greaterThan(0);
    const invalid = await graphql(
      service.url,
      `
        mutation Nope {
          noSuchField
        }
      `,
      { token },
    );
    expect(invalid.body.errors).to.have.length.greaterThan(0);
    const after = await scrapeIt();
    const delta = (operation: string, kind: string, outcome: string) =>
      valueOf(after, 'graphql_operations_total', { operation, kind, outcome }) -
      valueOf(before, 'graphql_operations_total', { operation, kind, outcome });
    expect(delta('ProductName', 'query', 'success')).to.equal(1);
    expect(delta('ProductName', 'query', 'error')).to.equal(1);
    expect(delta('anonymous', 'query', 'success')).to.equal(1);
    expect(delta('AddOne', 'mutation', 'success')).to.equal(1);
    // Refused before any resolver authenticated the caller: counted as anonymous, never by name.
    expect(delta('Broken', 'query', 'error')).to.equal(0);
    expect(delta('anonymous', 'query', 'error')).to.equal(1);
    expect(delta('anonymous', 'mutation', 'error')).to.equal(1);
    expect(
      valueOf(after, 'http_requests_total', { method: 'POST', route: '/graphql', status: '200' }),
    ).to.be.greaterThan(0);
  });

  it('an anonymous caller\'s operation names are not counted by name: its operations count under "anonymous"', async () => {
    const before = await scrapeIt();
    for (let i = 0; i < 5; i += 1) await graphql(service.url, `query Anon${i} { queryHealth { status } }`);
    // A bad token is no authenticated caller either.
    await graphql(service.url, 'query BadToken { products { data { id } } }', { token: 'not-a-token' });
    const after = await scrapeIt();
    for (const name of ['Anon0', 'Anon4', 'BadToken']) expect(after).not.to.include(`operation="${name}"`);
    const anonymous = (text: string) =>
      valueOf(text, 'graphql_operations_total', { operation: 'anonymous', kind: 'query', outcome: 'success' }) +
      valueOf(text, 'graphql_operations_total', { operation: 'anonymous', kind: 'query', outcome: 'error' });
    expect(anonymous(after) - anonymous(before)).to.equal(6);
  });

  it('GraphQL operation names are capped: past 100 distinct names, the rest are "other"', async () => {
    const token = moderator.access_token;
    for (let i = 0; i < 120; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          graphql(service.url, `query Op${i + j} { products(pagination: {limit: 1}) { data { id } } }`, { token }),
        ),
      );
    }
    const text = await scrapeIt();
    const names = new Set(
      samples(text, 'graphql_operations_total').map((line) => /operation="([^"]*)"/.exec(line)?.[1]),
    );
    expect(names.size).to.be.at.most(100 + 2); // the first 100 names, "anonymous" and "other"
    expect(
      valueOf(text, 'graphql_operations_total', { operation: 'other', kind: 'query', outcome: 'success' }),
    ).to.be.greaterThan(0);
    expect(names.has('Op119')).to.equal(false);
  });

  it('counts failed logins, throttled logins and refresh-token reuse', async () => {
    const before = await scrapeIt();
    const account = await register(api);
    const wrong = { email: account.user.email, password: 'not-the-password-1' };
    expect((await api.post('/api/v1/auth/login', { json: wrong })).status).to.equal(401);
    expect(
      (await api.post('/api/v1/auth/login', { json: { ...wrong, email: `nobody-${randomUUID()}@example.com` } }))
        .status,
    ).to.equal(401);
    expect((await api.post('/api/v1/auth/login', { json: wrong })).status).to.equal(401);
    expect((await api.post('/api/v1/auth/login', { json: wrong })).status).to.equal(429); // two failures: blocked
    await refresh(api, account.refresh_token);
    expect(
      (await api.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } })).status,
    ).to.equal(401);
    const after = await scrapeIt();
    const delta = (name: string) => valueOf(after, name) - valueOf(before, name);
    expect(delta('login_failures_total')).to.equal(3);
    expect(delta('login_throttled_total')).to.equal(1);
    expect(delta('refresh_token_reuse_total')).to.equal(1);
    expect(delta('rate_limit_rejections_total')).to.equal(0);
  });

  it('passes promtool check metrics (Debian prometheus package; required in CI)', async function () {
    const binary = promtool();
    if (!binary) {
      if (process.env.CI === 'true') throw new Error('CI must install promtool (Debian package prometheus)');
      console.log('      (skipped: promtool is not installed)');
      this.skip();
    }
    promtoolCheck(binary, await scrapeIt());
  });

  it('each service has its own registry: another service in the same process counts only its own requests', async () => {
    const other = await startService(testConfig({ SVC_RATE_LIMIT_ENABLED: 'false' }), { logger: silentLogger() });
    try {
      expect(other.metricsUrl).not.to.equal(service.metricsUrl);
      const text = await scrape(other.metricsUrl);
      expect(valueOf(text, 'http_requests_total', { method: 'GET', route: PRODUCT_ROUTE, status: '200' })).to.equal(0);
      expect(valueOf(text, 'login_failures_total')).to.equal(0);
      expect(text).to.include('# TYPE process_cpu_user_seconds_total counter');
    } finally {
      await other.stop();
    }
  });
});

describe('metrics: rate limiting, start-up and metrics.enabled', function () {
  this.timeout(60_000);

  it('counts rate-limit rejections, and their 429s under the route they were aimed at', async () => {
    const service = await startService(testConfig({ SVC_RATE_LIMIT_RATE: '3-M' }), { logger: silentLogger() });
    try {
      const api = new Api(service.url);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await api.get(`/api/v1/products/${randomUUID()}`)).status);
      expect(statuses).to.deep.equal([401, 401, 401, 429, 429]);
      const text = await scrape(service.metricsUrl);
      expect(valueOf(text, 'rate_limit_rejections_total')).to.equal(2);
      expect(valueOf(text, 'http_requests_total', { method: 'GET', route: PRODUCT_ROUTE, status: '429' })).to.equal(2);
      // `/search` matches the `:id` pattern too, but the router answers it with its own route: so does the label.
      expect((await api.get('/api/v1/products/search?q=x')).status).to.equal(429);
      const after = await scrape(service.metricsUrl);
      expect(
        valueOf(after, 'http_requests_total', { method: 'GET', route: '/api/v1/products/search', status: '429' }),
      ).to.equal(1);
      expect(valueOf(after, 'http_requests_total', { method: 'GET', route: PRODUCT_ROUTE, status: '429' })).to.equal(2);
    } finally {
      await service.stop();
    }
  });

  it('metrics.enabled false: no metrics listener at all', async () => {
    const port = await freePort();
    const service = await startService(testConfig({ SVC_METRICS_ENABLED: 'false', SVC_METRICS_PORT: String(port) }), {
      logger: silentLogger(),
    });
    try {
      expect(service.metricsUrl).to.equal(undefined);
      expect(await listening(port)).to.equal(false);
      expect((await new Api(service.url).get('/metrics')).status).to.equal(404);
    } finally {
      await service.stop();
    }
  });

  it('the metrics listener closes with the service', async () => {
    const service = await startService(testConfig(), { logger: silentLogger() });
    const port = Number(new URL(service.metricsUrl!).port);
    expect(await listening(port)).to.equal(true);
    await service.stop();
    expect(await listening(port)).to.equal(false);
  });

  it('start fails with a line naming metrics.port when the metrics port is taken', async () => {
    const first = await startService(testConfig(), { logger: silentLogger() });
    try {
      const port = new URL(first.metricsUrl!).port;
      let failure: unknown;
      await startService(testConfig({ SVC_METRICS_PORT: port }), { logger: silentLogger() }).then(
        (second) => second.stop(),
        (error: unknown) => (failure = error),
      );
      expect(failure).to.be.instanceOf(Error);
      expect((failure as Error).message).to.equal(
        `metrics.port: 127.0.0.1:${port} is already in use (metrics.host/metrics.port; metrics.enabled false turns them off)`,
      );
    } finally {
      await first.stop();
    }
  });
});
