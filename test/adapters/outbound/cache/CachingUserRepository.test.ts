import { expect } from 'chai';
import { CachingUserRepository } from '../../../../src/adapters/outbound/cache/CachingUserRepository.js';
import { InMemoryUserRepository } from '../../../../src/adapters/outbound/memory/InMemoryUserRepository.js';
import { User } from '../../../../src/domain/user/User.js';
import type { UserRepository } from '../../../../src/domain/user/UserRepository.js';

const now = new Date('2026-01-01T00:00:00Z');
const ada = User.register(
  { id: '00000000-0000-4000-8000-000000000001', email: 'ada@example.com', firstName: 'Ada', lastName: 'L', role: 'user', passwordHash: 'h' },
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
    const bob = User.register({ ...ada.toProps(), id: '00000000-0000-4000-8000-000000000002', email: 'bob@example.com' }, now);
    expect(await cache.findById(bob.id)).to.equal(undefined);
    await inner.add(bob);
    expect((await cache.findById(bob.id))?.email).to.equal('bob@example.com');
  });
});
