import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { emptyTables } from '../adapters/outbound/contracts/databases.js';
import {
  accountWithRole,
  Api,
  type ApiResponse,
  dataOf,
  decodeJwt,
  expectError,
  expectUnauthorized,
  register,
  type RequestOptions,
  type TokensJson,
  type UserJson,
} from '../support/api.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { RedisProcess } from '../support/faults.js';
import { silentLogger } from '../support/logger.js';

const LIMIT = 10;
const PRODUCTS = '/api/v1/products';
const PROFILE = '/api/v1/profile';

/** An address no other client of this run (or of a run in the last window) speaks for. */
const anIp = (): string => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/**
 * A client behind the balancer: every request carries `X-Forwarded-For` (the instances trust the
 * proxy), a fixed address when given, else a fresh one per request, so set-up requests never
 * spend the budget a test is measuring.
 */
class Client extends Api {
  constructor(
    baseUrl: string,
    private readonly ip?: string,
  ) {
    super(baseUrl);
  }

  override send(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return super.send(method, path, {
      ...options,
      headers: { 'X-Forwarded-For': this.ip ?? anIp(), ...options.headers },
    });
  }
}

/** Polls `check` every 20 ms until it holds; fails when that takes longer than `withinMs`. */
async function eventually(what: string, check: () => Promise<boolean>, withinMs = 1000): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) expect.fail(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * README: Running in production: two instances A and B of the service, started in this process, on one PostgreSQL
 * database and one Redis (rate limiter store `redis`), behave as one service. In-process is
 * enough: each `startService` builds its own container, database pool, Redis connections, caches
 * and casbin enforcer, and nothing the service keeps is module-global, so A and B share only what
 * two processes would — PostgreSQL and Redis.
 */
describe('two instances on one PostgreSQL and one Redis behave as one service', function () {
  this.timeout(60_000);
  const POSTGRES_URL = externalService('SVC_TEST_POSTGRES_URL');
  const REDIS_URL = externalService('SVC_TEST_REDIS_URL');
  let a: RunningService | undefined;
  let b: RunningService | undefined;
  let apiA: Client;
  let apiB: Client;

  before(async function () {
    if (!POSTGRES_URL || !REDIS_URL) {
      console.log('      (skipped: needs SVC_TEST_POSTGRES_URL and SVC_TEST_REDIS_URL)');
      this.skip();
    }
    // The PostgreSQL test database is shared with other suites: start from empty tables, so the
    // instances seed the shipped access rules instead of finding what another suite left.
    await emptyTables(POSTGRES_URL!);
    const env = {
      SVC_DATABASE_URL: POSTGRES_URL!,
      SVC_REDIS_URL: REDIS_URL!,
      SVC_RATE_LIMIT_STORE: 'redis',
      SVC_RATE_LIMIT_RATE: `${LIMIT}-M`,
      SVC_SERVER_TRUST_PROXY: 'true',
      SVC_AUTH_BCRYPT_COST: '4',
    };
    a = await startService(testConfig(env), { logger: silentLogger() });
    b = await startService(testConfig(env), { logger: silentLogger() });
    apiA = new Client(a.url);
    apiB = new Client(b.url);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  describe('one rate-limit budget', () => {
    it(`lets exactly ${LIMIT} requests of one client through across A and B, counting down on both; the next is 429 on either`, async () => {
      const { access_token: token } = await register(apiA);
      const ip = anIp();
      const [clientA, clientB] = [new Client(a!.url, ip), new Client(b!.url, ip)];
      // An uneven split: A, A, B, A, B, B, B, A, B, A.
      const order = [clientA, clientA, clientB, clientA, clientB, clientB, clientB, clientA, clientB, clientA];
      for (const [n, client] of order.entries()) {
        const response = await client.get(PRODUCTS, { token });
        expect(response.status, `request ${n + 1}: ${response.text}`).to.equal(200);
        expect(response.headers.get('x-ratelimit-limit')).to.equal(String(LIMIT));
        expect(response.headers.get('x-ratelimit-remaining'), `request ${n + 1}`).to.equal(String(LIMIT - n - 1));
      }
      for (const client of [clientB, clientA]) {
        const refused = await client.get(PRODUCTS, { token });
        expectError(refused, 429, 'RATE_LIMITED', 'too many requests');
        expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
        expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
      }
      // Another client still has its own budget on both.
      expect((await apiA.get(PRODUCTS, { token })).status).to.equal(200);
      expect((await apiB.get(PRODUCTS, { token })).status).to.equal(200);
    });

    it(`lets exactly ${LIMIT} of ${3 * LIMIT} concurrent requests of one client through, split across A and B`, async () => {
      const { access_token: token } = await register(apiA);
      const ip = anIp();
      const clients = [new Client(a!.url, ip), new Client(b!.url, ip)];
      const responses = await Promise.all(
        Array.from({ length: 3 * LIMIT }, (_, n) => clients[n % 2]!.get(PRODUCTS, { token })),
      );
      const statuses = responses.map((r) => r.status);
      expect(
        statuses.filter((s) => s === 200),
        statuses.join(','),
      ).to.have.length(LIMIT);
      expect(
        statuses.filter((s) => s === 429),
        statuses.join(','),
      ).to.have.length(2 * LIMIT);
      const remaining = responses
        .filter((r) => r.status === 200)
        .map((r) => Number(r.headers.get('x-ratelimit-remaining')));
      expect(remaining.sort((x, y) => x - y)).to.deep.equal(Array.from({ length: LIMIT }, (_, n) => n));
    });
  });

  describe('one login throttle', () => {
    const attempt = (api: Api, email: string, password: string) =>
      api.post('/api/v1/auth/login', { json: { email, password } });

    it('blocks an e-mail and client IP on both after login_max_failures failures split across A and B', async () => {
      const account = await register(apiA);
      const ip = anIp();
      const [clientA, clientB] = [new Client(a!.url, ip), new Client(b!.url, ip)];
      for (const client of [clientA, clientB, clientB, clientA, clientB]) {
        expectError(
          await attempt(client, account.user.email, 'wrong password'),
          401,
          'UNAUTHORIZED',
          'invalid credentials',
        );
      }
      for (const client of [clientA, clientB]) {
        const blocked = await attempt(client, account.user.email, account.password);
        expectError(blocked, 429, 'RATE_LIMITED', 'too many failed logins');
        expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 15 * 60);
      }
      // Another client address still logs in to the account, on either instance.
      dataOf(await attempt(apiB, account.user.email, account.password));
    });

    it('is reset on both by a success on one', async () => {
      const account = await register(apiA);
      const ip = anIp();
      const [clientA, clientB] = [new Client(a!.url, ip), new Client(b!.url, ip)];
      for (const client of [clientA, clientB, clientA, clientB]) {
        expectError(
          await attempt(client, account.user.email, 'wrong password'),
          401,
          'UNAUTHORIZED',
          'invalid credentials',
        );
      }
      dataOf(await attempt(clientB, account.user.email, account.password));
      // Without the reset seen by A too, the fifth failure in total would block the pair here.
      for (const client of [clientA, clientA, clientB, clientA]) {
        expectError(
          await attempt(client, account.user.email, 'wrong password'),
          401,
          'UNAUTHORIZED',
          'invalid credentials',
        );
      }
      dataOf(await attempt(clientA, account.user.email, account.password));
    });
  });

  describe('one access policy', () => {
    it('makes a rule added on A effective on B within one second, and its removal too', async () => {
      const admin = await accountWithRole(a!, apiA, 'admin');
      const user = await register(apiA);
      const rule = { role: 'user', path: '/api/v1/admin/users', action: 'GET' };
      expectError(await apiB.get(rule.path, { token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');

      expect((await apiA.post('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
        201,
      );
      await eventually(
        'the new rule on B',
        async () => (await apiB.get(rule.path, { token: user.access_token })).status === 200,
      );
      expect(
        dataOf<{ policies: unknown[] }>(await apiB.get('/api/v1/admin/policies', { token: admin.access_token }))
          .policies,
      ).to.deep.include({ ...rule, scope: 'all' });

      expect((await apiA.delete('/api/v1/admin/policies', { token: admin.access_token, json: rule })).status).to.equal(
        204,
      );
      await eventually(
        'the removal on B',
        async () => (await apiB.get(rule.path, { token: user.access_token })).status === 403,
      );
      expectError(await apiB.get(rule.path, { token: user.access_token }), 403, 'FORBIDDEN', 'forbidden');
    });
  });

  describe('one set of users', () => {
    it('refuses on B, within one second, the access and refresh tokens of a user deleted on A', async () => {
      const admin = await accountWithRole(a!, apiA, 'admin');
      const victim = await register(apiB);
      // B has just looked the victim up (and may remember it).
      dataOf(await apiB.get(PROFILE, { token: victim.access_token }));

      expect(
        (await apiA.delete(`/api/v1/admin/users/${victim.user.id}`, { token: admin.access_token })).status,
      ).to.equal(204);
      await eventually(
        'the deleted user refused on B',
        async () => (await apiB.get(PROFILE, { token: victim.access_token })).status === 401,
      );
      expectUnauthorized(await apiB.get(PROFILE, { token: victim.access_token }));
      expectUnauthorized(await apiA.get(PROFILE, { token: victim.access_token }));
      const refreshed = await apiB.post('/api/v1/auth/refresh', { json: { refresh_token: victim.refresh_token } });
      expectError(refreshed, 401, 'UNAUTHORIZED', 'invalid token');
    });

    it('gives the role set on A to the very next refresh on B (a demoted admin gets no admin token)', async () => {
      const admin = await accountWithRole(a!, apiA, 'admin');
      const demoted = await accountWithRole(a!, apiA, 'admin');
      // B has just looked the user up as an admin (and may remember it).
      dataOf(await apiB.get(PROFILE, { token: demoted.access_token }));

      const changed = await apiA.put(`/api/v1/admin/users/${demoted.user.id}`, {
        token: admin.access_token,
        json: { role: 'user' },
      });
      expect(dataOf<{ role: string }>(changed).role).to.equal('user');
      const pair = dataOf<TokensJson>(
        await apiB.post('/api/v1/auth/refresh', { json: { refresh_token: demoted.refresh_token } }),
      );
      expect(decodeJwt(pair.access_token).payload.role).to.equal('user');
      expectError(await apiB.get('/api/v1/admin/users', { token: pair.access_token }), 403, 'FORBIDDEN', 'forbidden');
    });

    it('takes admin powers from a demoted user within a second on B, for the access token issued before too', async () => {
      const admin = await accountWithRole(a!, apiA, 'admin');
      const demoted = await accountWithRole(a!, apiA, 'admin');
      // B has just served the user as an admin (and may remember it).
      expect((await apiB.get('/api/v1/admin/users', { token: demoted.access_token })).status).to.equal(200);
      const changed = await apiA.put(`/api/v1/admin/users/${demoted.user.id}`, {
        token: admin.access_token,
        json: { role: 'user' },
      });
      expect(dataOf<{ role: string }>(changed).role).to.equal('user');
      await eventually(
        'the old admin token refused on B',
        async () => (await apiB.get('/api/v1/admin/users', { token: demoted.access_token })).status === 403,
      );
      expectError(
        await apiA.get('/api/v1/admin/users', { token: demoted.access_token }),
        403,
        'FORBIDDEN',
        'forbidden',
      );
    });
    it('shows on B, at the next request, a profile changed on A (read your own writes behind a balancer)', async () => {
      const admin = await accountWithRole(a!, apiA, 'admin');
      const account = await register(apiA);
      // B has just looked the user up (and may remember it).
      expect(dataOf<UserJson>(await apiB.get(PROFILE, { token: account.access_token })).first_name).to.equal('Ada');

      dataOf(await apiA.put(PROFILE, { token: account.access_token, json: { first_name: 'Grace' } }));
      expect(dataOf<UserJson>(await apiB.get(PROFILE, { token: account.access_token })).first_name).to.equal('Grace');
      const seen = dataOf<UserJson>(
        await apiB.get(`/api/v1/admin/users/${account.user.id}`, { token: admin.access_token }),
      );
      expect(seen.first_name).to.equal('Grace');
    });

    it('lets only one of two admins, one on A and one on B, demote or delete the other at the same time', async () => {
      for (const [method, body, ok] of [
        ['PUT', { role: 'user' }, 200],
        ['DELETE', undefined, 204],
      ] as const) {
        const first = await accountWithRole(a!, apiA, 'admin');
        const second = await accountWithRole(a!, apiA, 'admin');
        // Leave exactly these two admins.
        const everyone = dataOf<UserJson[]>(
          await apiA.get('/api/v1/admin/users?per_page=100', { token: first.access_token }),
        );
        for (const user of everyone.filter(
          (u) => u.role === 'admin' && u.id !== first.user.id && u.id !== second.user.id,
        )) {
          dataOf(
            await apiA.put(`/api/v1/admin/users/${user.id}`, { token: first.access_token, json: { role: 'user' } }),
          );
        }
        const answers = await Promise.all([
          apiA.send(method, `/api/v1/admin/users/${second.user.id}`, {
            token: first.access_token,
            ...(body ? { json: body } : {}),
          }),
          apiB.send(method, `/api/v1/admin/users/${first.user.id}`, {
            token: second.access_token,
            ...(body ? { json: body } : {}),
          }),
        ]);
        const statuses = answers.map((r) => r.status);
        expect(
          statuses.filter((status) => status === ok),
          `${method}: ${statuses.join(', ')}`,
        ).to.have.length(1);
        const refused = answers.find((r) => r.status !== ok)!;
        if (method === 'DELETE' && refused.status === 401) {
          expectUnauthorized(refused); // deleted before its own request was authenticated: no second success either
        } else {
          expectError(
            refused,
            409,
            'CONFLICT',
            method === 'PUT' ? 'the last admin cannot be demoted' : 'the last admin cannot be deleted',
          );
        }
        const survivor = statuses[0] === ok ? first : second;
        const after = dataOf<UserJson[]>(
          await apiB.get('/api/v1/admin/users?per_page=100', { token: survivor.access_token }),
        );
        expect(
          after.filter((u) => u.role === 'admin').map((u) => u.id),
          method,
        ).to.deep.equal([survivor.user.id]);
      }
    });
  });

  describe('one set of refresh tokens', () => {
    it('detects a refresh token spent on A and replayed on B as reuse, and revokes its family on both', async () => {
      const account = await register(apiA);
      const first = dataOf<TokensJson>(
        await apiA.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } }),
      );
      const replay = await apiB.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } });
      expectError(replay, 401, 'UNAUTHORIZED', 'refresh token already used');
      expectError(
        await apiA.post('/api/v1/auth/refresh', { json: { refresh_token: first.refresh_token } }),
        401,
        'UNAUTHORIZED',
        'invalid token',
      );
    });

    it('refuses on B the refresh token family logged out on A', async () => {
      const account = await register(apiA);
      const next = dataOf<TokensJson>(
        await apiB.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } }),
      );
      expect(
        (
          await apiA.post('/api/v1/auth/logout', {
            token: next.access_token,
            json: { refresh_token: next.refresh_token },
          })
        ).status,
      ).to.equal(204);
      expectError(
        await apiB.post('/api/v1/auth/refresh', { json: { refresh_token: next.refresh_token } }),
        401,
        'UNAUTHORIZED',
        'invalid token',
      );
    });

    it('refuses on B, within one second, the access token of a session ended on A (docs/authentication.md)', async () => {
      const account = await register(apiA);
      const other = dataOf<TokensJson>(
        await apiB.post('/api/v1/auth/login', { json: { email: account.user.email, password: account.password } }),
      );
      // B has just looked both sessions up (and may remember them).
      dataOf(await apiB.get(PROFILE, { token: account.access_token }));
      dataOf(await apiB.get(PROFILE, { token: other.access_token }));

      const [, first] = dataOf<{ id: string }[]>(
        await apiA.get('/api/v1/auth/sessions', { token: other.access_token }),
      );
      expect((await apiA.delete(`/api/v1/auth/sessions/${first!.id}`, { token: other.access_token })).status).to.equal(
        204,
      );
      await eventually(
        'the ended session refused on B',
        async () => (await apiB.get(PROFILE, { token: account.access_token })).status === 401,
      );
      expectUnauthorized(await apiB.get(PROFILE, { token: account.access_token }));
      dataOf(await apiB.get(PROFILE, { token: other.access_token }));

      expect((await apiB.post('/api/v1/auth/logout-all', { token: other.access_token })).status).to.equal(204);
      await eventually(
        'logout-all on B reaching A',
        async () => (await apiA.get(PROFILE, { token: other.access_token })).status === 401,
      );
    });

    it('spends a refresh token sent to A and B at once exactly once: the other use is reuse, and the session ends on both', async () => {
      const account = await register(apiA);
      const [onA, onB] = await Promise.all([
        apiA.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } }),
        apiB.post('/api/v1/auth/refresh', { json: { refresh_token: account.refresh_token } }),
      ]);
      const answers = [onA, onB];
      const reuse = answers.filter(
        (r) =>
          r.status === 401 && (r.body as { error: { message: string } }).error.message === 'refresh token already used',
      );
      expect(reuse, `${onA.text} / ${onB.text}`).to.have.length(1);
      // The winner got its pair before the reuse ended the session, or was refused because it came after.
      const winner = answers.find((r) => r !== reuse[0])!;
      expect([200, 401], winner.text).to.include(winner.status);
      if (winner.status === 200) {
        const pair = winner.body as { data: TokensJson };
        expectError(
          await apiA.post('/api/v1/auth/refresh', { json: { refresh_token: pair.data.refresh_token } }),
          401,
          'UNAUTHORIZED',
          'invalid token',
        );
        await eventually(
          'the ended session refused on B',
          async () => (await apiB.get(PROFILE, { token: pair.data.access_token })).status === 401,
        );
      }
      await eventually(
        'the ended session refused on A',
        async () => (await apiA.get(PROFILE, { token: account.access_token })).status === 401,
      );
    });
  });
});

/**
 * The same two instances while their Redis is away (a Redis of this suite's own, killed): user
 * changes cannot be announced, so writes must not wait for Redis, and the other instance's user
 * cache still lets go of a deleted user within one second (its TTL).
 */
describe('two instances whose Redis is away', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-two-'));
  let redis: RedisProcess | undefined;
  const services: RunningService[] = [];

  before(async function () {
    if (!process.env.SVC_TEST_REDIS_URL && process.env.CI !== 'true') {
      console.log('      (skipped: runs with the Redis suites, SVC_TEST_REDIS_URL)');
      this.skip();
    }
    redis = await RedisProcess.create();
    const env = {
      SVC_DATABASE_URL: `sqlite:${join(dir, 'shared.sqlite')}`,
      SVC_REDIS_URL: redis.url,
      SVC_AUTH_BCRYPT_COST: '4',
      SVC_RATE_LIMIT_ENABLED: 'false',
    };
    services.push(await startService(testConfig(env), { logger: silentLogger() }));
    services.push(await startService(testConfig(env), { logger: silentLogger() }));
  });

  after(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await redis?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes a user on A at once, and B refuses it within one second', async () => {
    const [a, b] = services as [RunningService, RunningService];
    const [apiA, apiB] = [new Api(a.url), new Api(b.url)];
    const admin = await accountWithRole(a, apiA, 'admin');
    const victim = await register(apiB);
    dataOf(await apiB.get(PROFILE, { token: victim.access_token }));
    await redis!.kill();

    const started = Date.now();
    expect((await apiA.delete(`/api/v1/admin/users/${victim.user.id}`, { token: admin.access_token })).status).to.equal(
      204,
    );
    // Publishing gives up after 500 ms at worst; with Redis known to be down it must not even wait.
    expect(Date.now() - started, 'the delete waited for Redis').to.be.below(400);
    await eventually(
      'the deleted user refused on B',
      async () => (await apiB.get(PROFILE, { token: victim.access_token })).status === 401,
    );
  });
});
