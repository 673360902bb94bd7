import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { BentoCacheAdapter } from '../../../../src/adapters/outbound/cache/BentoCacheAdapter.js';
import { CachingCallerLookup } from '../../../../src/adapters/outbound/cache/CachingCallerLookup.js';
import { forgetUser } from '../../../../src/adapters/outbound/cache/CachingUserRepository.js';
import type { Cache } from '../../../../src/application/ports/Cache.js';
import type { CallerLookup } from '../../../../src/application/ports/CallerLookup.js';
import { User } from '../../../../src/domain/user/User.js';

const now = new Date('2026-01-01T00:00:00Z');
const ada = User.register(
  {
    id: '00000000-0000-4000-8000-000000000001',
    email: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'L',
    role: 'user',
    passwordHash: 'h',
  },
  now,
);
const bob = User.register(
  { ...ada.toProps(), id: '00000000-0000-4000-8000-000000000002', email: 'bob@example.com' },
  now,
);
const S1 = '5e551000-0000-4000-8000-000000000001';
const S2 = '5e551000-0000-4000-8000-000000000002';
const S3 = '5e551000-0000-4000-8000-000000000003';

/** A lookup answering from a table of (user, session) → user that the test edits, counting its reads. */
class FakeLookup implements CallerLookup {
  readonly active = new Map<string, User>();
  reads = 0;
  /** When set, each read waits for it after reading (a slow database). */
  gate: Promise<void> | undefined;

  start(user: User, sessionId: string): void {
    this.active.set(`${user.id} ${sessionId}`, user);
  }

  end(userId: string, sessionId: string): void {
    this.active.delete(`${userId} ${sessionId}`);
  }

  async find(userId: string, sessionId: string): Promise<User | undefined> {
    this.reads += 1;
    const user = this.active.get(`${userId} ${sessionId}`);
    await this.gate;
    return user;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('CachingCallerLookup (over the Cache port, memory only)', () => {
  let inner: FakeLookup;
  let shared: Cache;
  let cache: CachingCallerLookup;
  /** Whether the lookup ran its reads through the fresh-read wrapper it was given. */
  let freshReads: number;

  beforeEach(() => {
    inner = new FakeLookup();
    inner.start(ada, S1);
    inner.start(ada, S2);
    inner.start(bob, S3);
    shared = new BentoCacheAdapter({ prefix: `t-${randomUUID()}`, redisUrl: '' });
    freshReads = 0;
    cache = new CachingCallerLookup(
      inner,
      shared,
      (work) => {
        freshReads += 1;
        return work();
      },
      200,
    );
  });

  afterEach(() => shared.close());

  it('answers a repeated lookup of one session from memory within the TTL', async () => {
    expect((await cache.find(ada.id, S1, now))?.email).to.equal('ada@example.com');
    expect((await cache.find(ada.id, S1, now))?.email).to.equal('ada@example.com');
    expect(inner.reads).to.equal(1);
    expect(freshReads, 'the read ran through the fresh-read wrapper').to.equal(1);
  });

  it('answers a User equal to the one read, dates included', async () => {
    const found = await cache.find(ada.id, S1, now);
    expect(found).to.be.instanceOf(User);
    expect(found?.toProps()).to.deep.equal(ada.toProps());
    expect((await cache.find(ada.id, S1, now))?.createdAt.getTime()).to.equal(now.getTime());
  });

  it('reads a caller once for 50 concurrent cold lookups', async () => {
    await Promise.all(Array.from({ length: 50 }, () => cache.find(ada.id, S1, now)));
    expect(inner.reads).to.equal(1);
  });

  it('remembers per session: another session of the same user is read for itself', async () => {
    await cache.find(ada.id, S1, now);
    inner.end(ada.id, S2);
    expect(await cache.find(ada.id, S2, now)).to.equal(undefined);
    expect(inner.reads).to.equal(2);
  });

  it("never answers for a session under another user's id", async () => {
    await cache.find(bob.id, S3, now);
    expect(await cache.find(ada.id, S3, now)).to.equal(undefined);
  });

  it('reads again once the TTL has passed, so an end elsewhere shows within it', async () => {
    await cache.find(ada.id, S1, now);
    inner.end(ada.id, S1);
    expect((await cache.find(ada.id, S1, now))?.id).to.equal(ada.id);
    await sleep(250);
    expect(await cache.find(ada.id, S1, now)).to.equal(undefined);
    expect(inner.reads).to.equal(2);
  });

  it('never remembers a missing caller, so a session started later is found', async () => {
    const S4 = '5e551000-0000-4000-8000-000000000004';
    expect(await cache.find(ada.id, S4, now)).to.equal(undefined);
    inner.start(ada, S4);
    expect((await cache.find(ada.id, S4, now))?.id).to.equal(ada.id);
  });

  it("forgetting a user drops every session of that user at once, and no one else's", async () => {
    for (const [user, session] of [
      [ada, S1],
      [ada, S2],
      [bob, S3],
    ] as const) {
      await cache.find(user.id, session, now);
    }
    inner.end(ada.id, S1);
    inner.end(ada.id, S2);
    inner.end(bob.id, S3);

    await forgetUser(shared, ada.id);

    expect(await cache.find(ada.id, S1, now)).to.equal(undefined);
    expect(await cache.find(ada.id, S2, now)).to.equal(undefined);
    // Bob's answer was not forgotten: still served from memory within the TTL.
    expect((await cache.find(bob.id, S3, now))?.id).to.equal(bob.id);
    expect(inner.reads).to.equal(5);
  });

  it('does not keep a read that a forget overlapped (it may predate the end): it reads again', async () => {
    let release: () => void = () => undefined;
    inner.gate = new Promise<void>((r) => (release = r));
    const racing = new CachingCallerLookup(inner, shared, undefined, 10_000);
    const stale = racing.find(ada.id, S1, now);
    await sleep(5);
    inner.end(ada.id, S1);
    await forgetUser(shared, ada.id); // the session ended (here or elsewhere) while the read was on its way
    release();
    expect(await stale).to.equal(undefined);
    inner.gate = undefined;
    expect(await racing.find(ada.id, S1, now)).to.equal(undefined);
  });
});
