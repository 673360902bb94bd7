import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Cache } from '../../../../src/application/ports/Cache.js';
import { BentoCacheAdapter } from '../../../../src/adapters/outbound/cache/BentoCacheAdapter.js';
import { externalService } from '../../../support/env.js';
import { RedisProcess } from '../../../support/faults.js';

const REDIS_URL = externalService('SVC_TEST_REDIS_URL');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(predicate: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await predicate()) return performance.now() - started;
    await sleep(2);
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

/** What every Cache promises, on one instance. */
function behavesAsACache(make: () => Cache): void {
  let cache: Cache;
  beforeEach(() => {
    cache = make();
  });
  afterEach(() => cache.close());

  it('loads a cold key once for 50 concurrent calls and answers all of them', async () => {
    let loads = 0;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        cache.getOrSet(
          'cold',
          async () => {
            loads += 1;
            await sleep(30);
            return { name: 'row' };
          },
          { ttlMs: 60_000 },
        ),
      ),
    );
    expect(loads).to.equal(1);
    expect(answers.every((a) => a?.name === 'row')).to.equal(true);
  });

  it('answers a remembered value without loading, and loads again after delete', async () => {
    expect(await cache.getOrSet('k', async () => 'first', { ttlMs: 60_000 })).to.equal('first');
    expect(await cache.getOrSet('k', async () => 'second', { ttlMs: 60_000 })).to.equal('first');
    await cache.delete('k');
    expect(await cache.getOrSet('k', async () => 'third', { ttlMs: 60_000 })).to.equal('third');
  });

  it('forgets every key of a tag', async () => {
    await cache.getOrSet('u1:s1', async () => 'a', { ttlMs: 60_000, tags: ['user:u1'] });
    await cache.getOrSet('u2:s1', async () => 'b', { ttlMs: 60_000, tags: ['user:u2'] });
    await cache.deleteTagged(['user:u1']);
    expect(await cache.getOrSet('u1:s1', async () => 'a2', { ttlMs: 60_000, tags: ['user:u1'] })).to.equal('a2');
    expect(await cache.getOrSet('u2:s1', async () => 'b2', { ttlMs: 60_000, tags: ['user:u2'] })).to.equal('b');
  });

  it('does not remember a missing value, and passes on the very error of a loader that fails', async () => {
    expect(await cache.getOrSet('missing', async () => undefined, { ttlMs: 60_000 })).to.equal(undefined);
    expect(await cache.getOrSet('missing', async () => 'now there', { ttlMs: 60_000 })).to.equal('now there');
    // The caller tells a database that is down (503) from a fault by the error's kind: it must reach it as thrown.
    const down = new Error('db down');
    let error: unknown;
    await cache.getOrSet('failing', () => Promise.reject(down), { ttlMs: 60_000 }).catch((e) => (error = e));
    expect(error).to.equal(down);
    expect(await cache.getOrSet('failing', async () => 'back', { ttlMs: 60_000 })).to.equal('back');
  });

  it('loads again, rather than remember what it read, when a delete overlapped the load', async () => {
    let loads = 0;
    const reading = cache.getOrSet(
      'raced',
      async () => {
        loads += 1;
        if (loads === 1) await sleep(40);
        return loads === 1 ? 'before the write' : 'after the write';
      },
      { ttlMs: 60_000 },
    );
    await sleep(10);
    await cache.delete('raced');
    expect(await reading).to.equal('after the write');
    expect(await cache.getOrSet('raced', async () => 'unused', { ttlMs: 60_000 })).to.equal('after the write');
  });

  it('answers the value as stored: a caller that changes its answer changes no other answer', async () => {
    const load = async () => ({ name: 'row', tags: ['a'], at: new Date(0) });
    const first = await cache.getOrSet('shared', load, { ttlMs: 60_000 });
    const second = await cache.getOrSet('shared', load, { ttlMs: 60_000 });
    // As JSON keeps it: the date is its text.
    expect(second).to.deep.equal({ name: 'row', tags: ['a'], at: new Date(0).toISOString() });
    for (const answer of [first, second]) {
      try {
        answer!.name = 'changed';
        answer!.tags.push('b');
      } catch {
        // a frozen answer refuses the change, which is as good
      }
    }
    expect(await cache.getOrSet('shared', load, { ttlMs: 60_000 })).to.deep.equal({
      name: 'row',
      tags: ['a'],
      at: new Date(0).toISOString(),
    });
  });

  it('loads again once the ttl has passed', async () => {
    await cache.getOrSet('short', async () => 'old', { ttlMs: 50 });
    await sleep(80);
    expect(await cache.getOrSet('short', async () => 'new', { ttlMs: 50 })).to.equal('new');
  });
}

describe('Cache (bentocache)', () => {
  describe('memory only', () => {
    behavesAsACache(() => new BentoCacheAdapter({ prefix: `t-${randomUUID()}`, redisUrl: '' }));
  });

  describe('memory + Redis + bus', function () {
    before(function () {
      if (!REDIS_URL) {
        console.log('      (skipped: the shared cache suite needs SVC_TEST_REDIS_URL)');
        this.skip();
      }
    });

    behavesAsACache(() => new BentoCacheAdapter({ prefix: `t-${randomUUID()}`, redisUrl: REDIS_URL! }));

    /** Two instances sharing one prefix on Redis, both subscribed to the bus, closed afterwards. */
    async function twoInstances(work: (a: BentoCacheAdapter, b: BentoCacheAdapter) => Promise<void>): Promise<void> {
      const prefix = `t-${randomUUID()}`;
      const a = new BentoCacheAdapter({ prefix, redisUrl: REDIS_URL! });
      const b = new BentoCacheAdapter({ prefix, redisUrl: REDIS_URL! });
      try {
        await sleep(200); // both subscribed
        await work(a, b);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    }

    it('a delete on one instance is seen on another within 200 ms', async () => {
      await twoInstances(async (a, b) => {
        const delays: number[] = [];
        for (let i = 0; i < 20; i++) {
          const key = `k${i}`;
          await a.getOrSet(key, async () => 'old', { ttlMs: 60_000 });
          expect(await b.getOrSet(key, async () => 'old', { ttlMs: 60_000 })).to.equal('old');
          const started = performance.now();
          await a.delete(key);
          await waitFor(async () => (await b.getOrSet(key, async () => 'new', { ttlMs: 60_000 })) === 'new', 200);
          delays.push(performance.now() - started);
        }
        expect(Math.max(...delays)).to.be.below(200);
      });
    });

    it('a delete on one instance is seen within 200 ms by another that loaded the value itself', async () => {
      await twoInstances(async (a, b) => {
        for (let i = 0; i < 20; i++) {
          const key = `own${i}`;
          // b loads it (and answers it from what it loaded), then a reads it and deletes it.
          expect(await b.getOrSet(key, async () => 'old', { ttlMs: 60_000 })).to.equal('old');
          expect(await b.getOrSet(key, async () => 'unused', { ttlMs: 60_000 })).to.equal('old');
          await a.getOrSet(key, async () => 'unused', { ttlMs: 60_000 });
          await a.delete(key);
          await waitFor(async () => (await b.getOrSet(key, async () => 'new', { ttlMs: 60_000 })) === 'new', 200);
        }
      });
    });

    it('forgetting a tag on one instance is seen within 200 ms by another that loaded its keys itself', async () => {
      await twoInstances(async (a, b) => {
        const options = { ttlMs: 60_000, tags: ['user:u1'] };
        expect(await b.getOrSet('caller:u1:s1', async () => 'old', options)).to.equal('old');
        expect(await b.getOrSet('caller:u1:s1', async () => 'unused', options)).to.equal('old');
        await a.deleteTagged(['user:u1']);
        await waitFor(async () => (await b.getOrSet('caller:u1:s1', async () => 'new', options)) === 'new', 200);
      });
    });

    it('with Redis stopped every call answers (memory, then the loader); invalidation works again once it is back', async function () {
      this.timeout(20_000);
      const redis = await RedisProcess.create();
      const prefix = `t-${randomUUID()}`;
      const a = new BentoCacheAdapter({ prefix, redisUrl: redis.url });
      const b = new BentoCacheAdapter({ prefix, redisUrl: redis.url });
      try {
        await sleep(200);
        expect(await a.getOrSet('x', async () => 'v1', { ttlMs: 60_000 })).to.equal('v1');
        expect(await b.getOrSet('x', async () => 'v1', { ttlMs: 60_000 })).to.equal('v1');
        await redis.kill();
        expect(await a.getOrSet('x', async () => 'loader', { ttlMs: 60_000 })).to.equal('v1');
        expect(await a.getOrSet('cold', async () => 'loader', { ttlMs: 60_000 })).to.equal('loader');
        await a.delete('x');
        await a.deleteTagged(['t']);
        expect(await a.getOrSet('x', async () => 'v2', { ttlMs: 60_000 })).to.equal('v2');

        await redis.start();
        await a.getOrSet('y', async () => 'old', { ttlMs: 60_000 });
        await b.getOrSet('y', async () => 'old', { ttlMs: 60_000 });
        // Both reconnect (retry every ≤ 2 s), then a delete reaches the other instance again.
        await waitFor(async () => {
          await a.delete('y');
          await sleep(20);
          return (await b.getOrSet('y', async () => 'new', { ttlMs: 60_000 })) === 'new';
        }, 10_000);
      } finally {
        await Promise.all([a.close(), b.close()]);
        await redis.kill();
      }
    });
  });
});
