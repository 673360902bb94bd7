import { expect } from 'chai';
import pg from 'pg';
import { resetAccessPolicy } from '../../src/main/infrastructure/accessPolicy.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api, dataOf, register, type Account, type UserJson } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { connectDatabase } from '../support/database.js';
import { externalService } from '../support/env.js';
import { gqlCreateProduct, gqlData, graphql } from '../support/graphql.js';
import { silentLogger } from '../support/logger.js';

const POSTGRES = externalService('SVC_TEST_POSTGRES_URL');
const REPLICA = externalService('SVC_TEST_POSTGRES_REPLICA_URL');
const REDIS = externalService('SVC_TEST_REDIS_URL');
const PRODUCTS = '/api/v1/products';

interface ProductJson {
  id: string;
  name: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Read-your-writes with a streaming replica whose replay is paused: the client that wrote reads
 * its writes at once; another client reads what the replica has (its reads go there); once the
 * replica has replayed the writing client's last write, that client reads from the replica again.
 * Clients are told apart by their address (`X-Forwarded-For`, one trusted proxy) and their user.
 */
describe('read-your-writes with a paused replica (end to end)', function () {
  this.timeout(120_000);
  let service: RunningService;
  let api: Api;
  /** A second instance on the same database (and Redis, when there is one): behind one load balancer. */
  let second: RunningService | undefined;
  let primary: pg.Client;
  let replica: pg.Client;
  let writer: Account;
  let reader: Account;
  const A = { 'X-Forwarded-For': '203.0.113.71' };
  /** The reading client's address: nothing is ever written from it. */
  const B = { 'X-Forwarded-For': '203.0.113.72' };
  /** Where the writing user reads from besides A, and where a login is sent from. */
  const A2 = { 'X-Forwarded-For': '203.0.113.73' };
  const L = { 'X-Forwarded-For': '203.0.113.74' };

  /** Resolves once the replica has replayed everything the primary has written so far. */
  const caughtUp = async (): Promise<void> => {
    const { rows } = await primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
    for (let i = 0; i < 200; i += 1) {
      const replayed = await replica.query<{ behind: boolean }>(
        'select pg_last_wal_replay_lsn() < $1::pg_lsn as behind',
        [rows[0]!.lsn],
      );
      if (replayed.rows[0]?.behind === false) return;
      await sleep(50);
    }
    throw new Error('the replica did not catch up');
  };
  const pause = async (): Promise<void> => {
    await replica.query('select pg_wal_replay_pause()');
    for (let i = 0; i < 100; i += 1) {
      const { rows } = await replica.query<{ state: string }>('select pg_get_wal_replay_pause_state() as state');
      if (rows[0]?.state === 'paused') return;
      await sleep(20);
    }
    throw new Error('the replica did not pause');
  };
  const resume = () => replica.query('select pg_wal_replay_resume()');

  before(async function () {
    if (!POSTGRES || !REPLICA) {
      console.log('      (skipped: needs SVC_TEST_POSTGRES_URL and SVC_TEST_POSTGRES_REPLICA_URL)');
      this.skip();
    }
    primary = new pg.Client({ connectionString: POSTGRES });
    replica = new pg.Client({ connectionString: REPLICA });
    await Promise.all([primary.connect(), replica.connect()]);
    await resume();
    const config = () =>
      testConfig({
        SVC_DATABASE_URL: POSTGRES!,
        SVC_DATABASE_REPLICA_URLS: REPLICA!,
        // A replica paused for the whole test stays fit to read from: what is tested is whose reads go there.
        SVC_DATABASE_REPLICA_MAX_LAG: '10m',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        SVC_SERVER_TRUST_PROXY: 'true',
        SVC_API_MODE: 'both',
        ...(REDIS ? { SVC_REDIS_URL: REDIS } : {}),
      });
    // The shared database may hold the rules another suite stored: start from the policy file's.
    const database = await connectDatabase(POSTGRES!);
    await resetAccessPolicy(config(), database).finally(() => database.close());
    service = await startService(config(), { logger: silentLogger() });
    if (REDIS) second = await startService(config(), { logger: silentLogger() });
    api = new Api(service.url);
    writer = await accountWithRole(service, api, 'moderator');
    reader = await register(api);
    await caughtUp();
  });
  afterEach(async () => resume());
  after(async () => {
    await resume().catch(() => undefined);
    await second?.stop();
    await service?.stop();
    await Promise.all([primary?.end(), replica?.end()]);
  });

  it('the writing client reads each of its 50 writes at once; another client reads the replica; both read the replica once it replayed them', async () => {
    await pause();
    const created: ProductJson[] = [];
    for (let i = 0; i < 25; i += 1) {
      const name = `Read your write ${i} ${Date.now()}`;
      const product = dataOf<ProductJson>(
        await api.post(PRODUCTS, { token: writer.access_token, headers: A, json: { name, price: 1.5 } }),
        201,
      );
      created.push(product);
      const read = await api.get(`${PRODUCTS}/${product.id}`, { token: writer.access_token, headers: A });
      expect(dataOf<ProductJson>(read).name, `product ${i}`).to.equal(name);
    }
    for (let i = 0; i < 25; i += 1) {
      const firstName = `Name${i}`;
      const updated = await api.put('/api/v1/profile', {
        token: writer.access_token,
        headers: A,
        json: { first_name: firstName },
      });
      expect(dataOf<UserJson>(updated).first_name).to.equal(firstName);
      const me = await api.get('/api/v1/profile', { token: writer.access_token, headers: A });
      expect(dataOf<UserJson>(me).first_name, `profile ${i}`).to.equal(firstName);
    }
    // The same user from another address reads its writes too (its user is its client).
    const last = created.at(-1)!;
    expect(
      dataOf<ProductJson>(await api.get(`${PRODUCTS}/${last.id}`, { token: writer.access_token, headers: A2 })).id,
    ).to.equal(last.id);

    // Another user at another address reads from the replica, which has not replayed them.
    const elsewhere = await api.get(`${PRODUCTS}/${last.id}`, { token: reader.access_token, headers: B });
    expect(elsewhere.status, elsewhere.text).to.equal(404);

    // Replay resumes: once the replica has it, the other client reads it there.
    await resume();
    await caughtUp();
    const seen = await api.get(`${PRODUCTS}/${last.id}`, { token: reader.access_token, headers: B });
    expect(seen.status, seen.text).to.equal(200);

    // The writing client's reads go back to the replica once it replayed its last write (the next
    // probe, within a second, finds it there): a change made on the primary behind the service's
    // back while replay is paused again is not seen by its reads.
    await sleep(2500);
    await pause();
    await primary.query('update products set name = $1 where id = $2', ['changed on the primary only', last.id]);
    const fromReplica = await api.get(`${PRODUCTS}/${last.id}`, { token: writer.access_token, headers: A });
    expect(dataOf<ProductJson>(fromReplica).name).to.equal(last.name);
    await resume();
  });

  it('reads a write request all on the primary: a login right after a registration elsewhere signs in', async () => {
    await pause();
    const account = await register(api);
    const session = await api.post('/api/v1/auth/login', {
      headers: L,
      json: { email: account.user.email, password: account.password },
    });
    expect(dataOf<{ user: UserJson }>(session).user.id).to.equal(account.user.id);
  });

  it('over GraphQL too: a query posted by the writing client reads its mutation; another client’s reads the replica', async () => {
    await pause();
    const product = await gqlCreateProduct(service.url, writer.access_token, { name: 'Over GraphQL', price: 2 });
    const query = 'query ($id: ID!) { product(id: $id) { id name } }';
    const mine = await graphql<{ product: ProductJson | null }>(service.url, query, {
      token: writer.access_token,
      variables: { id: product.id },
    });
    expect(gqlData(mine).product?.name).to.equal('Over GraphQL');
    const theirs = await graphql<{ product: ProductJson | null }>(service.url, query, {
      token: reader.access_token,
      headers: B,
      variables: { id: product.id },
    });
    expect(theirs.body.data?.product ?? null, theirs.text).to.equal(null);
  });

  it('a client reads its write through another instance sharing Redis', async function () {
    if (!second) {
      console.log('      (skipped: needs SVC_TEST_REDIS_URL)');
      this.skip();
    }
    await pause();
    const name = `Through one instance ${Date.now()}`;
    const product = dataOf<ProductJson>(
      await api.post(PRODUCTS, { token: writer.access_token, headers: A, json: { name, price: 3 } }),
      201,
    );
    const other = new Api(second!.url);
    // The same user from another address, through the other instance: the position is in Redis.
    const read = await other.get(`${PRODUCTS}/${product.id}`, { token: writer.access_token, headers: A2 });
    expect(dataOf<ProductJson>(read).name).to.equal(name);
    const elsewhere = await other.get(`${PRODUCTS}/${product.id}`, { token: reader.access_token, headers: B });
    expect(elsewhere.status, elsewhere.text).to.equal(404);
  });
});
