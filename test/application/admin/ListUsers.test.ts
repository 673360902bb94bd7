import { expect } from 'chai';
import { ListUsers } from '../../../src/application/admin/ListUsers.js';
import type { SortOrder } from '../../../src/domain/shared/Page.js';
import type { User } from '../../../src/domain/user/User.js';
import type { UserListQuery, UserSortField } from '../../../src/domain/user/UserRepository.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, START, type World } from '../world.js';

const HOUR = 3_600_000;
const idOf = (n: number) => `c0000000-0000-4000-8000-00000000000${n}`;

/**
 * Five users with ties on every sortable field but e-mail (first name Alice ×2, last name
 * Smith ×2, two creation instants shared), stored in an order that matches no sort.
 */
const PEOPLE = {
  carol: { n: 1, email: 'carol@example.com', first: 'Carol', last: 'Smith', at: 0 },
  alice: { n: 2, email: 'alice@example.com', first: 'Alice', last: 'Jones', at: 1 },
  bob: { n: 3, email: 'bob@example.com', first: 'Bob', last: 'Smith', at: 0 },
  dave: { n: 4, email: 'dave@sample.org', first: 'Alice', last: 'Brown', at: 2 },
  eve: { n: 5, email: 'eve@example.com', first: 'Eve', last: 'Adams', at: 1 },
} as const;
type Name = keyof typeof PEOPLE;

/** Expected ascending orders (ties by id ascending); descending is the exact reverse (ties by id descending). */
const ASCENDING: Record<UserSortField, Name[]> = {
  email: ['alice', 'bob', 'carol', 'dave', 'eve'],
  first_name: ['alice', 'dave', 'bob', 'carol', 'eve'],
  last_name: ['eve', 'dave', 'alice', 'carol', 'bob'],
  created_at: ['carol', 'bob', 'alice', 'eve', 'dave'],
};

describe('ListUsers', () => {
  let world: World;
  let listUsers: ListUsers;

  const query = (overrides: Partial<UserListQuery> = {}): UserListQuery => ({
    page: 1,
    perPage: 20,
    sort: 'created_at',
    order: 'desc',
    ...overrides,
  });
  const namesOf = (items: readonly User[]): Name[] =>
    items.map((u) => (Object.keys(PEOPLE) as Name[]).find((name) => idOf(PEOPLE[name].n) === u.id)!);

  beforeEach(async () => {
    world = newWorld();
    listUsers = new ListUsers(world.users);
    for (const name of ['dave', 'carol', 'eve', 'bob', 'alice'] as const) {
      const p = PEOPLE[name];
      await world.users.add(
        aUser()
          .withId(idOf(p.n))
          .withEmail(p.email)
          .withName(p.first, p.last)
          .build(new Date(START.getTime() + p.at * HOUR)),
      );
    }
  });

  for (const sort of Object.keys(ASCENDING) as UserSortField[]) {
    for (const order of ['asc', 'desc'] as SortOrder[]) {
      it(`sorts by ${sort} ${order}, ties by id ${order}`, async () => {
        const expected = order === 'asc' ? ASCENDING[sort] : [...ASCENDING[sort]].reverse();
        const page = await listUsers.execute(query({ sort, order }));
        expect(namesOf(page.items)).to.deep.equal(expected);
        expect(page.total).to.equal(5);
      });
    }
  }

  it('pages through the sorted list without repeating or skipping a row, with the total on every page', async () => {
    const pages = [];
    for (let page = 1; page <= 3; page++)
      pages.push(await listUsers.execute(query({ page, perPage: 2, sort: 'last_name', order: 'asc' })));
    expect(pages.map((p) => namesOf(p.items))).to.deep.equal([['eve', 'dave'], ['alice', 'carol'], ['bob']]);
    expect(pages.map((p) => ({ total: p.total, page: p.page, perPage: p.perPage }))).to.deep.equal([
      { total: 5, page: 1, perPage: 2 },
      { total: 5, page: 2, perPage: 2 },
      { total: 5, page: 3, perPage: 2 },
    ]);
  });

  it('answers an empty page past the end, still with the total', async () => {
    const page = await listUsers.execute(query({ page: 4, perPage: 2 }));
    expect(page.items).to.deep.equal([]);
    expect(page).to.include({ total: 5, page: 4, perPage: 2 });
  });

  describe('q', () => {
    const search = async (q: string, overrides: Partial<UserListQuery> = {}) =>
      listUsers.execute(query({ q, sort: 'email', order: 'asc', ...overrides }));

    it('matches the first name, case-insensitively', async () => {
      const page = await search('ALICE');
      expect(namesOf(page.items)).to.deep.equal(['alice', 'dave']);
      expect(page.total).to.equal(2);
    });

    it('matches the last name, case-insensitively', async () => {
      expect(namesOf((await search('sMiTh')).items)).to.deep.equal(['bob', 'carol']);
      expect(namesOf((await search('jones')).items)).to.deep.equal(['alice']);
    });

    it('matches the e-mail, case-insensitively and on any part of it', async () => {
      expect(namesOf((await search('SAMPLE.ORG')).items)).to.deep.equal(['dave']);
      expect(namesOf((await search('example')).items)).to.deep.equal(['alice', 'bob', 'carol', 'eve']);
    });

    it('answers an empty page with total 0 when nothing matches', async () => {
      const page = await search('zebra');
      expect(page.items).to.deep.equal([]);
      expect(page.total).to.equal(0);
    });

    it('counts the total of the matches, not of the page', async () => {
      const page = await search('example', { page: 2, perPage: 3 });
      expect(namesOf(page.items)).to.deep.equal(['eve']);
      expect(page).to.include({ total: 4, page: 2, perPage: 3 });
    });

    it('sorts the matches by the requested field', async () => {
      const page = await search('example', { sort: 'created_at', order: 'desc' });
      expect(namesOf(page.items)).to.deep.equal(['eve', 'alice', 'bob', 'carol']);
    });
  });
});
