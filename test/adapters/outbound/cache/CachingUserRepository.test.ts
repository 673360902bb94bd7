import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { BentoCacheAdapter } from '../../../../src/adapters/outbound/cache/BentoCacheAdapter.js';
import { CachingUserRepository, forgetUser } from '../../../../src/adapters/outbound/cache/CachingUserRepository.js';
import type { Cache } from '../../../../src/application/ports/Cache.js';
import { InMemoryUserRepository } from '../../../../src/adapters/outbound/memory/InMemoryUserRepository.js';
import { User } from '../../../../src/domain/user/User.js';
import type { UserRepository } from '../../../../src/domain/user/UserRepository.js';

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

/** Counts the reads that reach the wrapped repository. */
function counting(inner: UserRepository): { repo: UserRepository; reads: () => number } {
  let reads = 0;
  const repo = Object.create(inner) as UserRepository;
  repo.findById = async (id) => {
    reads += 1;
    return inner.findById(id);
  };
  return { repo, reads: () => reads };
}

describe('CachingUserRepository (over the Cache port, memory only)', () => {
  let inner: InMemoryUserRepository;
  let counted: ReturnType<typeof counting>;
  let shared: Cache;
  let cache: CachingUserRepository;

  beforeEach(async () => {
    inner = new InMemoryUserRepository();
    await inner.add(ada);
    counted = counting(inner);
    shared = new BentoCacheAdapter({ prefix: `t-${randomUUID()}`, redisUrl: '' });
    cache = new CachingUserRepository(counted.repo, shared, undefined, 200);
  });

  afterEach(() => shared.close());

  it('answers repeated lookups of a user from memory within the TTL', async () => {
    expect((await cache.findById(ada.id))?.email).to.equal('ada@example.com');
    expect((await cache.findById(ada.id))?.email).to.equal('ada@example.com');
    expect(counted.reads()).to.equal(1);
  });

  it('reads again once the TTL has passed', async () => {
    await cache.findById(ada.id);
    await new Promise((r) => setTimeout(r, 250));
    await cache.findById(ada.id);
    expect(counted.reads()).to.equal(2);
  });

  it('forgets a user deleted through it at once', async () => {
    await cache.findById(ada.id);
    expect(await cache.delete(ada.id)).to.equal(true);
    expect(await cache.findById(ada.id)).to.equal(undefined);
  });

  it('forgets a user updated through it at once', async () => {
    await cache.findById(ada.id);
    await cache.update(ada.with({ role: 'moderator' }, now));
    expect((await cache.findById(ada.id))?.role).to.equal('moderator');
  });

  it('never remembers a missing user, so a user created later is found', async () => {
    const bob = User.register(
      { ...ada.toProps(), id: '00000000-0000-4000-8000-000000000002', email: 'bob@example.com' },
      now,
    );
    expect(await cache.findById(bob.id)).to.equal(undefined);
    await inner.add(bob);
    expect((await cache.findById(bob.id))?.email).to.equal('bob@example.com');
  });

  it('answers a User equal to the one stored, dates included', async () => {
    const found = await cache.findById(ada.id);
    expect(found).to.be.instanceOf(User);
    expect(found?.toProps()).to.deep.equal(ada.toProps());
    expect((await cache.findById(ada.id))?.updatedAt).to.be.instanceOf(Date);
  });

  it('forgets a user written elsewhere when its tag is forgotten', async () => {
    await cache.findById(ada.id);
    await inner.update(ada.with({ role: 'moderator' }, now));
    expect((await cache.findById(ada.id))?.role).to.equal('user');
    await forgetUser(shared, ada.id);
    expect((await cache.findById(ada.id))?.role).to.equal('moderator');
    await inner.delete(ada.id);
    await forgetUser(shared, ada.id);
    expect(await cache.findById(ada.id)).to.equal(undefined);
  });

  it('reads again when a forget overlapped the read (it may predate the write)', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const slow = Object.create(inner) as UserRepository;
    slow.findById = async (id) => {
      const user = await inner.findById(id);
      await gate;
      return user;
    };
    const racing = new CachingUserRepository(slow, shared, undefined, 10_000);
    const stale = racing.findById(ada.id);
    await new Promise((r) => setTimeout(r, 5));
    await inner.delete(ada.id);
    await forgetUser(shared, ada.id); // another instance deleted the user while the read was on its way
    release();
    expect(await stale).to.equal(undefined);
    expect(await racing.findById(ada.id)).to.equal(undefined);
  });

  it('forgets the user on each write through it, once stored, before answering', async () => {
    const seen = async () => {
      const user = await cache.findById(ada.id);
      return user && `${user.role} ${user.mfaEnabled}`;
    };
    const writes: [string, () => Promise<unknown>, string | undefined][] = [
      ['update', () => cache.update(ada.with({ role: 'moderator' }, now)), 'moderator false'],
      ['second factors', () => cache.setSecondFactors(ada.id, { mfaEnabled: true }, now), 'moderator true'],
      [
        'update keeping an admin',
        async () => cache.updateKeepingAnAdmin((await inner.findById(ada.id))!.with({ role: 'user' }, now)),
        'user true',
      ],
      ['delete keeping an admin', () => cache.deleteKeepingAnAdmin(ada.id), undefined],
    ];
    for (const [name, write, expected] of writes) {
      await seen();
      await write();
      expect(await seen(), name).to.equal(expected);
    }
  });
});
