import { expect } from 'chai';
import { CachingUserRepository } from '../../../../src/adapters/outbound/cache/CachingUserRepository.js';
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

describe('CachingUserRepository', () => {
  let inner: InMemoryUserRepository;
  let counted: ReturnType<typeof counting>;
  let cache: CachingUserRepository;

  beforeEach(async () => {
    inner = new InMemoryUserRepository();
    await inner.add(ada);
    counted = counting(inner);
    cache = new CachingUserRepository(counted.repo, 200);
  });

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

  it('forgets a user written elsewhere when told', async () => {
    await cache.findById(ada.id);
    await inner.update(ada.with({ role: 'moderator' }, now));
    expect((await cache.findById(ada.id))?.role).to.equal('user');
    cache.forget(ada.id);
    expect((await cache.findById(ada.id))?.role).to.equal('moderator');
    await inner.delete(ada.id);
    cache.forget(ada.id);
    expect(await cache.findById(ada.id)).to.equal(undefined);
  });

  it('does not remember a read that a forget overlapped (it may predate the write)', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const slow = Object.create(inner) as UserRepository;
    slow.findById = async (id) => {
      const user = await inner.findById(id);
      await gate;
      return user;
    };
    const racing = new CachingUserRepository(slow, 10_000);
    const stale = racing.findById(ada.id);
    await inner.delete(ada.id);
    racing.forget(ada.id); // another instance deleted the user while the read was on its way
    release();
    expect((await stale)?.id).to.equal(ada.id);
    expect(await racing.findById(ada.id)).to.equal(undefined);
  });

  it('tells the write listener of each write through it, once stored, before answering', async () => {
    const told: string[] = [];
    cache.onWrite(async (id) => {
      told.push(`${id} ${(await inner.findById(id))?.role ?? 'gone'}`);
    });
    await cache.add(
      User.register({ ...ada.toProps(), id: '00000000-0000-4000-8000-000000000003', email: 'cy@example.com' }, now),
    );
    await cache.update(ada.with({ role: 'moderator' }, now));
    expect(told).to.deep.equal([`${ada.id} moderator`]);
    await cache.updateKeepingAnAdmin(ada.with({ role: 'user' }, now));
    await cache.deleteKeepingAnAdmin(ada.id);
    expect(told).to.deep.equal([`${ada.id} moderator`, `${ada.id} user`, `${ada.id} gone`]);
  });
});
