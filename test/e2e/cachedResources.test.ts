import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { emptyTables } from '../adapters/outbound/contracts/databases.js';
import { accountWithRole, Api, dataOf, register, type Account } from '../support/api.js';
import { CACHED_MODULES, CACHED_POLICY, countRowStatements, createCachedTables } from '../support/cachedResources.js';
import { testConfig } from '../support/config.js';
import { externalService } from '../support/env.js';
import { RedisProcess } from '../support/faults.js';
import { silentLogger } from '../support/logger.js';

const MEMOS = '/api/v1/memos';
const DIARY = '/api/v1/diary-entries';

interface Row {
  id: string;
  title?: string;
  text?: string;
  owner_id?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` (no pause between polls) until it holds; answers how long that took, failing past `withinMs`. */
async function within(what: string, withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    const elapsed = performance.now() - started;
    if (elapsed > withinMs) expect.fail(`${what}: not within ${withinMs} ms (${Math.round(elapsed)} ms)`);
  }
}

/** The access rules file the suites' instances seed their rules from. */
function policyFile(dir: string): string {
  const path = join(dir, 'policy.csv');
  writeFileSync(path, CACHED_POLICY);
  return path;
}

/** Writes the row behind the service's back (no cache hears of it): how a test sees that a read is cached. */
async function writeBehindTheCache(service: RunningService, table: string, id: string, title: string): Promise<void> {
  await service.database.sql.run(`update ${table} set title = ? where id = ?`, [title, id]);
}

/**
 * What one instance promises of a resource declared `cached`, on whatever storage it runs: a GET
 * by id served from the cache, loaded once however many ask at once, forgotten by every write, and
 * an owned row answered to its owner alone.
 */
function behavesAsCachedResources(instance: () => RunningService): void {
  let api: Api;
  let admin: Account;
  let alice: Account;
  let bob: Account;

  before(async () => {
    api = new Api(instance().url);
    admin = await accountWithRole(instance(), api, 'admin');
    alice = await register(api);
    bob = await register(api);
  });

  const createMemo = async (title: string) =>
    dataOf<Row>(await api.post(MEMOS, { token: admin.access_token, json: { title } }), 201);
  const title = async (id: string, token = alice.access_token) =>
    dataOf<Row>(await api.get(`${MEMOS}/${id}`, { token })).title;

  it('serves a GET by id from the cache: a write behind its back is not seen', async () => {
    const memo = await createMemo('first');
    expect(await title(memo.id)).to.equal('first');
    await writeBehindTheCache(instance(), 'memos', memo.id, 'behind the cache');
    expect(await title(memo.id)).to.equal('first');
  });

  it('makes one database statement for 50 concurrent cold GETs of one row', async () => {
    const memo = await createMemo('cold');
    const statements = countRowStatements(instance().database, 'memos', memo.id);
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => api.get(`${MEMOS}/${memo.id}`, { token: alice.access_token })),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(200));
      expect(answers.every((a) => (a.body as { data: Row }).data.title === 'cold')).to.equal(true);
      expect(statements.count()).to.equal(1);
    } finally {
      statements.stop();
    }
  });

  it('reads an update and a delete (REST) at once', async () => {
    const memo = await createMemo('before');
    expect(await title(memo.id)).to.equal('before');
    dataOf(await api.put(`${MEMOS}/${memo.id}`, { token: admin.access_token, json: { title: 'after' } }));
    expect(await title(memo.id)).to.equal('after');
    expect((await api.delete(`${MEMOS}/${memo.id}`, { token: admin.access_token })).status).to.equal(204);
    expect((await api.get(`${MEMOS}/${memo.id}`, { token: alice.access_token })).status).to.equal(404);
  });

  it("never answers one user's owned row to another, whoever asked first", async () => {
    const post = async (who: Account, text: string) =>
      dataOf<Row>(await api.post(DIARY, { token: who.access_token, json: { text } }), 201);
    const get = (who: Account, id: string) => api.get(`${DIARY}/${id}`, { token: who.access_token });
    const alices = await post(alice, 'dear diary');
    // Alice warms the cache, then Bob asks for her row: an unknown id to him.
    expect(dataOf<Row>(await get(alice, alices.id)).owner_id).to.equal(alice.user.id);
    expect((await get(bob, alices.id)).status).to.equal(404);
    const bobs = await post(bob, 'my diary');
    // Alice asks first (cold): 404, and Bob still gets his own.
    expect((await get(alice, bobs.id)).status).to.equal(404);
    expect(dataOf<Row>(await get(bob, bobs.id)).text).to.equal('my diary');
    expect((await get(alice, bobs.id)).status).to.equal(404);
    // A staff caller (scope all) reads both.
    expect((await get(admin, alices.id)).status).to.equal(200);
    expect((await get(admin, bobs.id)).status).to.equal(200);
    // Bob cannot write Alice's row either, and her cached row stays hers.
    expect((await api.put(`${DIARY}/${alices.id}`, { token: bob.access_token, json: { text: 'x' } })).status).to.equal(
      404,
    );
    expect(dataOf<Row>(await get(alice, alices.id)).text).to.equal('dear diary');
  });
}

describe('a resource declared cached, on SQLite with the memory cache (no Redis)', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-cached-'));
  let service: RunningService | undefined;

  before(async () => {
    const config = testConfig({
      SVC_ACCESS_POLICY: policyFile(dir),
      SVC_AUTH_BCRYPT_COST: '4',
      SVC_RATE_LIMIT_ENABLED: 'false',
    });
    service = await startService(config, { logger: silentLogger(), modules: CACHED_MODULES });
    await createCachedTables(service.database);
  });

  after(async () => {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  behavesAsCachedResources(() => service!);
});

/** Two instances A and B on one PostgreSQL and one Redis, each with its own cache, serving the cached resources. */
async function twoInstances(
  postgresUrl: string,
  redisUrl: string,
  dir: string,
): Promise<[RunningService, RunningService]> {
  // The PostgreSQL test database is shared with other suites: empty tables, so the rules are seeded from this suite's file.
  await emptyTables(postgresUrl);
  const config = testConfig({
    SVC_DATABASE_URL: postgresUrl,
    SVC_REDIS_URL: redisUrl,
    SVC_ACCESS_POLICY: policyFile(dir),
    SVC_API_MODE: 'both',
    SVC_AUTH_BCRYPT_COST: '4',
    SVC_RATE_LIMIT_ENABLED: 'false',
  });
  const a = await startService(config, { logger: silentLogger(), modules: CACHED_MODULES });
  const b = await startService(config, { logger: silentLogger(), modules: CACHED_MODULES }).catch(async (error) => {
    await a.stop();
    throw error;
  });
  await createCachedTables(a.database);
  return [a, b];
}

describe('a resource declared cached, on two instances sharing PostgreSQL and Redis', function () {
  this.timeout(60_000);
  const POSTGRES_URL = externalService('SVC_TEST_POSTGRES_URL');
  const REDIS_URL = externalService('SVC_TEST_REDIS_URL');
  const dir = mkdtempSync(join(tmpdir(), 'portico-cached-'));
  let a: RunningService | undefined;
  let b: RunningService | undefined;

  before(async function () {
    if (!POSTGRES_URL || !REDIS_URL) {
      console.log('      (skipped: needs SVC_TEST_POSTGRES_URL and SVC_TEST_REDIS_URL)');
      this.skip();
    }
    [a, b] = await twoInstances(POSTGRES_URL!, REDIS_URL!, dir);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  describe('on instance A alone', () => behavesAsCachedResources(() => a!));

  describe('across A and B', () => {
    let apiA: Api;
    let apiB: Api;
    let admin: Account;
    let alice: Account;

    before(async () => {
      apiA = new Api(a!.url);
      apiB = new Api(b!.url);
      admin = await accountWithRole(a!, apiA, 'admin');
      alice = await register(apiA);
    });

    const titleOn = async (api: Api, id: string) =>
      dataOf<Row>(await api.get(`${MEMOS}/${id}`, { token: alice.access_token })).title;
    const cachedOnB = async (title: string) => {
      const memo = dataOf<Row>(await apiA.post(MEMOS, { token: admin.access_token, json: { title } }), 201);
      expect(await titleOn(apiB, memo.id)).to.equal(title);
      // B answers from its cache: a write behind the caches' back is not seen there.
      await writeBehindTheCache(a!, 'memos', memo.id, 'behind the cache');
      expect(await titleOn(apiB, memo.id)).to.equal(title);
      return memo;
    };

    it('an update on A (REST) is read on B within 200 ms', async () => {
      const memo = await cachedOnB('v1');
      dataOf(await apiA.put(`${MEMOS}/${memo.id}`, { token: admin.access_token, json: { title: 'v2' } }));
      const took = await within('B reads the update', 200, async () => (await titleOn(apiB, memo.id)) === 'v2');
      expect(took).to.be.below(200);
    });

    it('an update on A (GraphQL) is read on B within 200 ms', async () => {
      const memo = await cachedOnB('g1');
      const answer = await apiA.post('/graphql', {
        token: admin.access_token,
        json: {
          query: 'mutation ($id: ID!) { updateMemo(id: $id, input: { title: "g2" }) { status } }',
          variables: { id: memo.id },
        },
      });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.text).to.include('"status":200');
      await within('B reads the GraphQL update', 200, async () => (await titleOn(apiB, memo.id)) === 'g2');
    });

    it('a delete on A is read on B (404) within 200 ms', async () => {
      const memo = await cachedOnB('doomed');
      expect((await apiA.delete(`${MEMOS}/${memo.id}`, { token: admin.access_token })).status).to.equal(204);
      await within(
        'B answers 404',
        200,
        async () => (await apiB.get(`${MEMOS}/${memo.id}`, { token: alice.access_token })).status === 404,
      );
    });

    it("never answers one user's owned row to another on the other instance", async () => {
      const bob = await register(apiB);
      const entry = dataOf<Row>(await apiA.post(DIARY, { token: alice.access_token, json: { text: 'mine' } }), 201);
      expect(dataOf<Row>(await apiB.get(`${DIARY}/${entry.id}`, { token: alice.access_token })).text).to.equal('mine');
      expect((await apiB.get(`${DIARY}/${entry.id}`, { token: bob.access_token })).status).to.equal(404);
      expect((await apiA.get(`${DIARY}/${entry.id}`, { token: bob.access_token })).status).to.equal(404);
    });
  });
});

describe('a resource declared cached, with Redis stopped and started again under load', function () {
  this.timeout(90_000);
  const POSTGRES_URL = externalService('SVC_TEST_POSTGRES_URL');
  const dir = mkdtempSync(join(tmpdir(), 'portico-cached-'));
  let redis: RedisProcess | undefined;
  let a: RunningService | undefined;
  let b: RunningService | undefined;

  before(async function () {
    if (!POSTGRES_URL || !process.env.SVC_TEST_REDIS_URL) {
      console.log('      (skipped: needs SVC_TEST_POSTGRES_URL and a redis-server, SVC_TEST_REDIS_URL)');
      this.skip();
    }
    redis = await RedisProcess.create();
    [a, b] = await twoInstances(POSTGRES_URL!, redis.url, dir);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails no request while Redis is away, and invalidates across instances again once it is back', async () => {
    const [apiA, apiB] = [new Api(a!.url), new Api(b!.url)];
    const admin = await accountWithRole(a!, apiA, 'admin');
    const alice = await register(apiA);
    const memos = await Promise.all(
      Array.from(
        { length: 5 },
        async (_, n) =>
          dataOf<Row>(await apiA.post(MEMOS, { token: admin.access_token, json: { title: `m${n}` } }), 201).id,
      ),
    );
    const failures: string[] = [];
    let requests = 0;
    let running = true;
    const worker = async (n: number) => {
      while (running) {
        const api = n % 2 === 0 ? apiA : apiB;
        const id = memos[randomInt(memos.length)]!;
        const write = randomInt(10) === 0;
        const response = write
          ? await api.put(`${MEMOS}/${id}`, { token: admin.access_token, json: { title: `w${randomInt(1000)}` } })
          : await api.get(`${MEMOS}/${id}`, { token: alice.access_token });
        requests += 1;
        if (response.status !== 200) failures.push(`${write ? 'PUT' : 'GET'} ${response.status} ${response.text}`);
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, n) => worker(n)));
    await sleep(500);
    await redis!.kill();
    await sleep(1500);
    await redis!.start();
    await sleep(1500);
    running = false;
    await load;
    expect(failures, `${failures.length} of ${requests} requests failed`).to.deep.equal([]);
    expect(requests).to.be.greaterThan(100);

    // Back: B's cached row is forgotten again when A writes it.
    const [id] = memos as [string];
    await within('B reads A’s writes again', 5000, async () => {
      const title = `after-${randomInt(1_000_000)}`;
      dataOf(await apiA.put(`${MEMOS}/${id}`, { token: admin.access_token, json: { title } }));
      await sleep(50);
      return dataOf<Row>(await apiB.get(`${MEMOS}/${id}`, { token: alice.access_token })).title === title;
    });
  });
});
