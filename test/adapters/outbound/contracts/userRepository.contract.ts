import { expect } from 'chai';
import type { SortOrder } from '../../../../src/domain/shared/Page.js';
import { User, type UserProps } from '../../../../src/domain/user/User.js';
import { EmailAlreadyRegisteredError, UserNotFoundError } from '../../../../src/domain/user/UserErrors.js';
import type { UserRepository, UserSortField } from '../../../../src/domain/user/UserRepository.js';
import { describeContract, type ContractSubject } from './databases.js';

/** A UUID-shaped id whose last hex digits order the users deliberately. */
const id = (suffix: string): string => `00000000-0000-4000-8000-${suffix.padStart(12, '0')}`;

const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

function aUser(overrides: Partial<UserProps> & Pick<UserProps, 'id' | 'email'>): User {
  return User.restore({
    firstName: 'Ada',
    lastName: 'Lovelace',
    role: 'user',
    passwordHash: '$2b$04$abcdefghijklmnopqrstuu5Yx0m0kS4jA1XvJt9qgM3b0yVh2b5yW',
    emailVerified: false,
    mfaEnabled: false,
    hasPasskey: false,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  expect.fail('expected the promise to reject');
}

/**
 * Five users whose sort keys tie on purpose (three share the first name Alex, two share each
 * of two last names, two share a creation time), inserted in an order that is neither the id
 * order nor any sort order, so a tie broken by insertion order instead of id shows.
 */
const ROSTER: readonly User[] = [
  aUser({ id: id('c'), email: 'carol@example.com', firstName: 'Alex', lastName: 'Moreau', createdAt: at(2) }),
  aUser({ id: id('a'), email: 'dave@example.com', firstName: 'Alex', lastName: 'Novak', createdAt: at(0) }),
  aUser({ id: id('e'), email: 'erin@example.com', firstName: 'Beth', lastName: 'Moreau', createdAt: at(1) }),
  aUser({ id: id('b'), email: 'bob@example.com', firstName: 'Alex', lastName: 'Lopez', createdAt: at(1) }),
  aUser({ id: id('d'), email: 'anna@example.com', firstName: 'Cleo', lastName: 'Novak', createdAt: at(3) }),
];

/** The e-mails of ROSTER in ascending order of each sort field, ties by ascending id. */
const ASCENDING: Record<UserSortField, string[]> = {
  email: ['anna', 'bob', 'carol', 'dave', 'erin'],
  // Alex: dave (…a), bob (…b), carol (…c); then Beth, Cleo.
  first_name: ['dave', 'bob', 'carol', 'erin', 'anna'],
  // Lopez; Moreau: carol (…c), erin (…e); Novak: dave (…a), anna (…d).
  last_name: ['bob', 'carol', 'erin', 'dave', 'anna'],
  // t0 dave; t1: bob (…b), erin (…e); t2 carol; t3 anna.
  created_at: ['dave', 'bob', 'erin', 'carol', 'anna'],
};

const expectedOrder = (sort: UserSortField, order: SortOrder): string[] => {
  const names = ASCENDING[sort].map((name) => `${name}@example.com`);
  // Ties are broken by id in the same direction, so descending is exactly ascending reversed.
  return order === 'asc' ? names : names.reverse();
};

/** Users whose names hold LIKE's wildcards and the escape character, to be matched literally. */
const AWKWARD: readonly User[] = [
  aUser({ id: id('101'), email: 'percent@example.com', firstName: 'Pat', lastName: '100% Sure' }),
  aUser({ id: id('102'), email: 'room@example.com', firstName: 'Rory', lastName: 'Room 1000' }),
  aUser({ id: id('103'), email: 'snake@example.com', firstName: 'Sid', lastName: 'snake_case' }),
  aUser({ id: id('104'), email: 'camel@example.com', firstName: 'Cam', lastName: 'snakeXcase' }),
  aUser({ id: id('105'), email: 'wow@example.com', firstName: 'Wow!', lastName: 'Banger' }),
  aUser({ id: id('106'), email: 'wowza@example.com', firstName: 'Wowza', lastName: 'Plain' }),
  aUser({ id: id('107'), email: 'bang@example.com', firstName: 'Eve', lastName: 'Ex!_Mark' }),
];

/** The behaviour every UserRepository promises, whichever storage is behind it. */
export function userRepositoryContract(name: string, subject: ContractSubject<UserRepository>): void {
  describeContract(`UserRepository contract: ${name}`, subject, (repository) => {
    const emailsOf = (users: readonly User[]): string[] => users.map((u) => u.email);
    const list = (q: Partial<Parameters<UserRepository['list']>[0]> = {}) =>
      repository().list({ page: 1, perPage: 100, sort: 'email', order: 'asc', ...q });

    describe('add and find', () => {
      it('finds an added user by id and by e-mail, every field intact', async () => {
        const user = aUser({
          id: id('1'),
          email: 'ada@example.com',
          firstName: 'Ada',
          lastName: 'Lovelace',
          role: 'moderator',
          createdAt: new Date('2026-01-02T03:04:05.678Z'),
          updatedAt: new Date('2026-02-03T04:05:06.789Z'),
        });
        await repository().add(user);

        const byId = await repository().findById(user.id);
        const byEmail = await repository().findByEmail('ada@example.com');
        expect(byId?.toProps()).to.deep.equal(user.toProps());
        expect(byEmail?.toProps()).to.deep.equal(user.toProps());
      });

      it('answers undefined for an unknown id or e-mail', async () => {
        await repository().add(aUser({ id: id('1'), email: 'ada@example.com' }));
        expect(await repository().findById(id('2'))).to.equal(undefined);
        expect(await repository().findByEmail('nobody@example.com')).to.equal(undefined);
      });

      it('round-trips timestamps to the millisecond, in every read path', async () => {
        const createdAt = new Date('2026-03-04T05:06:07.001Z');
        const updatedAt = new Date('2026-03-04T05:06:07.999Z');
        await repository().add(aUser({ id: id('1'), email: 'ada@example.com', createdAt, updatedAt }));

        const reads = [
          await repository().findById(id('1')),
          await repository().findByEmail('ada@example.com'),
          (await list()).items[0],
        ];
        for (const read of reads) {
          expect(read?.createdAt).to.be.instanceOf(Date);
          expect(read?.createdAt.getTime()).to.equal(createdAt.getTime());
          expect(read?.updatedAt.getTime()).to.equal(updatedAt.getTime());
        }
      });

      it('round-trips emailVerified, true and false, through add, update and every read path', async () => {
        const verified = aUser({ id: id('1'), email: 'ada@example.com', emailVerified: true });
        const unverified = aUser({ id: id('2'), email: 'bob@example.com', emailVerified: false });
        await repository().add(verified);
        await repository().add(unverified);
        const flags = async (userId: string, email: string): Promise<boolean[]> => {
          const listed = (await list()).items.find((u) => u.id === userId);
          return [(await repository().findById(userId))!, (await repository().findByEmail(email))!, listed!].map(
            (u) => u.emailVerified,
          );
        };
        expect(await flags(id('1'), 'ada@example.com')).to.deep.equal([true, true, true]);
        expect(await flags(id('2'), 'bob@example.com')).to.deep.equal([false, false, false]);

        await repository().update(verified.with({ email: 'countess@example.com' }, at(1)));
        await repository().update(unverified.withVerifiedEmail(at(1)));
        expect(await flags(id('1'), 'countess@example.com')).to.deep.equal([false, false, false]);
        expect(await flags(id('2'), 'bob@example.com')).to.deep.equal([true, true, true]);

        const reverified = (await repository().findById(id('1')))!.withVerifiedEmail(at(2));
        expect(await repository().updateKeepingAnAdmin(reverified)).to.equal('done');
        expect(await flags(id('1'), 'countess@example.com')).to.deep.equal([true, true, true]);
      });

      it('rejects a second user with a registered e-mail and keeps the first', async () => {
        const first = aUser({ id: id('1'), email: 'ada@example.com', firstName: 'First' });
        await repository().add(first);

        const error = await rejection(
          repository().add(aUser({ id: id('2'), email: 'ada@example.com', firstName: 'Second' })),
        );

        expect(error).to.be.instanceOf(EmailAlreadyRegisteredError);
        expect(await repository().findById(id('2'))).to.equal(undefined);
        expect((await repository().findByEmail('ada@example.com'))?.firstName).to.equal('First');
      });
    });

    describe('update', () => {
      it('stores every changed field and the new updatedAt', async () => {
        const user = aUser({ id: id('1'), email: 'ada@example.com' });
        await repository().add(user);
        const changed = user
          .with(
            {
              email: 'countess@example.com',
              firstName: 'Augusta',
              lastName: 'King',
              role: 'admin',
              passwordHash: 'new-hash',
            },
            new Date('2026-05-06T07:08:09.123Z'),
          )
          .withMfa(true, new Date('2026-05-06T07:08:09.123Z'))
          .withPasskey(true, new Date('2026-05-06T07:08:09.123Z'));

        await repository().update(changed);

        // Everything but the second-factor flags, which only setSecondFactors writes.
        expect((await repository().findById(id('1')))?.toProps()).to.deep.equal({
          ...changed.toProps(),
          mfaEnabled: false,
          hasPasskey: false,
        });
        expect(await repository().findByEmail('ada@example.com')).to.equal(undefined);
        expect((await repository().findByEmail('countess@example.com'))?.id).to.equal(id('1'));
      });

      it('sets the second-factor flags alone; an update made from an older read keeps them', async () => {
        const user = aUser({ id: id('1'), email: 'ada@example.com' });
        await repository().add(user);
        await repository().setSecondFactors(id('1'), { mfaEnabled: true }, at(10));
        expect((await repository().findById(id('1')))?.toProps()).to.include({ mfaEnabled: true, hasPasskey: false });
        await repository().setSecondFactors(id('1'), { hasPasskey: true }, at(20));
        await repository().update(user.with({ firstName: 'Augusta' }, at(30)));
        const stored = (await repository().findById(id('1')))!;
        expect(stored.toProps()).to.include({ firstName: 'Augusta', mfaEnabled: true, hasPasskey: true });
        expect(stored.updatedAt).to.deep.equal(at(30));
        await repository().setSecondFactors(id('1'), { mfaEnabled: false, hasPasskey: false }, at(40));
        expect((await repository().findById(id('1')))?.toProps()).to.deep.include({
          firstName: 'Augusta',
          mfaEnabled: false,
          hasPasskey: false,
          updatedAt: at(40),
        });
        expect(await rejection(repository().setSecondFactors(id('9'), { mfaEnabled: true }, at(50)))).to.be.instanceOf(
          UserNotFoundError,
        );
      });

      it('keeps the user its own e-mail (no conflict with itself)', async () => {
        const user = aUser({ id: id('1'), email: 'ada@example.com' });
        await repository().add(user);
        await repository().update(user.with({ firstName: 'Augusta' }, at(60)));
        expect((await repository().findById(id('1')))?.firstName).to.equal('Augusta');
      });

      it("rejects taking another user's e-mail and changes nothing", async () => {
        await repository().add(aUser({ id: id('1'), email: 'ada@example.com' }));
        const grace = aUser({ id: id('2'), email: 'grace@example.com', firstName: 'Grace' });
        await repository().add(grace);

        const error = await rejection(
          repository().update(grace.with({ email: 'ada@example.com', firstName: 'Changed' }, at(60))),
        );

        expect(error).to.be.instanceOf(EmailAlreadyRegisteredError);
        const stored = await repository().findById(id('2'));
        expect(stored?.email).to.equal('grace@example.com');
        expect(stored?.firstName).to.equal('Grace');
      });

      it('rejects an update of a user that does not exist, and does not create it', async () => {
        const ghost = aUser({ id: id('9'), email: 'ghost@example.com' });

        const error = await rejection(repository().update(ghost));

        expect(error).to.be.instanceOf(UserNotFoundError);
        expect((error as UserNotFoundError).detail).to.equal(`id: ${id('9')}`);
        expect(await repository().findById(id('9'))).to.equal(undefined);
      });
    });

    describe('delete', () => {
      it('answers true when it deleted the user, then false', async () => {
        await repository().add(aUser({ id: id('1'), email: 'ada@example.com' }));
        await repository().add(aUser({ id: id('2'), email: 'grace@example.com' }));

        expect(await repository().delete(id('1'))).to.equal(true);
        expect(await repository().delete(id('1'))).to.equal(false);

        expect(await repository().findById(id('1'))).to.equal(undefined);
        expect(await repository().findByEmail('ada@example.com')).to.equal(undefined);
        expect((await repository().findById(id('2')))?.email).to.equal('grace@example.com');
      });

      it('frees the e-mail of a deleted user', async () => {
        await repository().add(aUser({ id: id('1'), email: 'ada@example.com' }));
        await repository().delete(id('1'));
        await repository().add(aUser({ id: id('2'), email: 'ada@example.com' }));
        expect((await repository().findByEmail('ada@example.com'))?.id).to.equal(id('2'));
      });
    });

    describe('writes that keep an admin', () => {
      const admin = (n: number) => aUser({ id: id(`a${n}`), email: `admin${n}@example.com`, role: 'admin' });
      const roles = async () => (await list()).items.map((u) => `${u.email}:${u.role}`);

      it('demotes an admin while another admin remains', async () => {
        await repository().add(admin(1));
        await repository().add(admin(2));
        const demoted = admin(1).with({ role: 'moderator' }, at(60));

        expect(await repository().updateKeepingAnAdmin(demoted)).to.equal('done');

        expect((await repository().findById(id('a1')))?.toProps()).to.deep.equal(demoted.toProps());
        expect((await repository().findById(id('a2')))?.role).to.equal('admin');
      });

      it('refuses to demote the last admin, changing nothing', async () => {
        await repository().add(admin(1));
        await repository().add(aUser({ id: id('1'), email: 'ada@example.com', role: 'moderator' }));

        expect(
          await repository().updateKeepingAnAdmin(admin(1).with({ role: 'user', firstName: 'X' }, at(60))),
        ).to.equal('last-admin');

        expect((await repository().findById(id('a1')))?.toProps()).to.deep.equal(admin(1).toProps());
      });

      it('counts only the role spelled exactly admin (not one inheriting it, not another case)', async () => {
        await repository().add(admin(1));
        await repository().add(aUser({ id: id('1'), email: 'ada@example.com', role: 'Admin' }));
        await repository().add(aUser({ id: id('2'), email: 'bob@example.com', role: 'superadmin' }));

        expect(await repository().updateKeepingAnAdmin(admin(1).with({ role: 'superadmin' }, at(60)))).to.equal(
          'last-admin',
        );
        expect(await repository().deleteKeepingAnAdmin(id('a1'))).to.equal('last-admin');
        expect((await repository().findById(id('a1')))?.role).to.equal('admin');
      });

      it('changes other users freely, with one admin or none', async () => {
        await repository().add(admin(1));
        const ada = aUser({ id: id('1'), email: 'ada@example.com', role: 'moderator' });
        await repository().add(ada);

        expect(await repository().updateKeepingAnAdmin(ada.with({ role: 'user' }, at(60)))).to.equal('done');
        expect(await repository().updateKeepingAnAdmin(admin(1).with({ firstName: 'Root' }, at(60)))).to.equal('done');
        expect(await repository().deleteKeepingAnAdmin(id('1'))).to.equal('done');
        expect(await roles()).to.deep.equal(['admin1@example.com:admin']);
        expect((await repository().findById(id('a1')))?.firstName).to.equal('Root');

        await repository().delete(id('a1'));
        const bob = aUser({ id: id('2'), email: 'bob@example.com' });
        await repository().add(bob);
        expect(await repository().updateKeepingAnAdmin(bob.with({ role: 'moderator' }, at(60)))).to.equal('done');
        expect(await repository().deleteKeepingAnAdmin(id('2'))).to.equal('done');
      });

      it('deletes an admin while another admin remains, and refuses the last one', async () => {
        await repository().add(admin(1));
        await repository().add(admin(2));

        expect(await repository().deleteKeepingAnAdmin(id('a1'))).to.equal('done');
        expect(await repository().deleteKeepingAnAdmin(id('a2'))).to.equal('last-admin');

        expect(await repository().findById(id('a1'))).to.equal(undefined);
        expect((await repository().findById(id('a2')))?.toProps()).to.deep.equal(admin(2).toProps());
      });

      it('answers not-found for an unknown user, creating nothing', async () => {
        await repository().add(admin(1));
        expect(await repository().updateKeepingAnAdmin(aUser({ id: id('9'), email: 'ghost@example.com' }))).to.equal(
          'not-found',
        );
        expect(await repository().deleteKeepingAnAdmin(id('9'))).to.equal('not-found');
        expect(await repository().findById(id('9'))).to.equal(undefined);
      });

      it("rejects taking another user's e-mail", async () => {
        await repository().add(admin(1));
        await repository().add(admin(2));
        const error = await rejection(
          repository().updateKeepingAnAdmin(admin(2).with({ email: 'admin1@example.com' }, at(60))),
        );
        expect(error).to.be.instanceOf(EmailAlreadyRegisteredError);
      });

      it('leaves exactly one admin when every admin is demoted or deleted at the same time', async () => {
        const admins = Array.from({ length: 8 }, (_, n) => admin(n + 1));
        for (const user of admins) await repository().add(user);

        // Each admin is demoted or deleted (as by another admin) at once; only one write may lose.
        const outcomes = await Promise.all(
          admins.map((user, n) =>
            n % 2 === 0
              ? repository().updateKeepingAnAdmin(user.with({ role: 'user' }, at(60)))
              : repository().deleteKeepingAnAdmin(user.id),
          ),
        );

        expect(outcomes.filter((o) => o === 'last-admin')).to.have.length(1);
        expect(outcomes.filter((o) => o === 'done')).to.have.length(admins.length - 1);
        expect((await list()).items.filter((u) => u.role === 'admin')).to.have.length(1);
      });

      it('leaves exactly one admin when two admins demote each other at the same time, every time', async () => {
        for (let round = 0; round < 10; round += 1) {
          for (const user of (await list()).items) await repository().delete(user.id);
          await repository().add(admin(1));
          await repository().add(admin(2));

          const outcomes = await Promise.all([
            repository().updateKeepingAnAdmin(admin(2).with({ role: 'moderator' }, at(60))),
            repository().updateKeepingAnAdmin(admin(1).with({ role: 'moderator' }, at(60))),
          ]);

          expect([...outcomes].sort(), `round ${round}`).to.deep.equal(['done', 'last-admin']);
          expect(
            (await list()).items.filter((u) => u.role === 'admin'),
            `round ${round}`,
          ).to.have.length(1);
        }
      });
    });

    describe('list', () => {
      beforeEach(async () => {
        for (const user of ROSTER) await repository().add(user);
      });

      for (const sort of ['email', 'first_name', 'last_name', 'created_at'] as const) {
        for (const order of ['asc', 'desc'] as const) {
          it(`sorts by ${sort} ${order}, ties by id ${order}`, async () => {
            const page = await list({ sort, order });
            expect(emailsOf(page.items)).to.deep.equal(expectedOrder(sort, order));
            expect(page.total).to.equal(5);
          });

          it(`pages through ${sort} ${order} without repeating or skipping a row`, async () => {
            const pages = [];
            for (const page of [1, 2, 3]) pages.push(await list({ sort, order, page, perPage: 2 }));
            expect(pages.map((p) => p.items.length)).to.deep.equal([2, 2, 1]);
            expect(pages.flatMap((p) => emailsOf(p.items))).to.deep.equal(expectedOrder(sort, order));
          });
        }
      }

      it('reports page, perPage and the total across all pages', async () => {
        const page = await list({ sort: 'first_name', order: 'asc', page: 2, perPage: 2 });
        expect(page.page).to.equal(2);
        expect(page.perPage).to.equal(2);
        expect(page.total).to.equal(5);
        expect(emailsOf(page.items)).to.deep.equal(['carol@example.com', 'erin@example.com']);
      });

      it('answers an empty page, with the right total, past the end', async () => {
        const page = await list({ page: 4, perPage: 2 });
        expect(page.items).to.deep.equal([]);
        expect(page.total).to.equal(5);
        expect(page.page).to.equal(4);
        expect(page.perPage).to.equal(2);
      });

      it('answers an empty page with total 0 when nothing is stored', async () => {
        for (const user of ROSTER) await repository().delete(user.id);
        const page = await list();
        expect(page.items).to.deep.equal([]);
        expect(page.total).to.equal(0);
      });

      it('returns whole users, timestamps included', async () => {
        const page = await list({ sort: 'email', order: 'asc', perPage: 1 });
        const anna = ROSTER.find((u) => u.email === 'anna@example.com')!;
        expect(page.items[0]?.toProps()).to.deep.equal(anna.toProps());
      });
    });

    describe('list filtered by q', () => {
      beforeEach(async () => {
        for (const user of [...ROSTER, ...AWKWARD]) await repository().add(user);
      });

      const matches = async (q: string): Promise<string[]> => emailsOf((await list({ q })).items);

      it('matches the e-mail, case-insensitively', async () => {
        expect(await matches('PERCENT@')).to.deep.equal(['percent@example.com']);
        expect(await matches('CaRoL')).to.deep.equal(['carol@example.com']);
      });

      it('matches the first name, case-insensitively', async () => {
        expect(await matches('aLEx')).to.deep.equal(['bob@example.com', 'carol@example.com', 'dave@example.com']);
        expect(await matches('WOWZ')).to.deep.equal(['wowza@example.com']);
      });

      it('matches the last name, case-insensitively', async () => {
        expect(await matches('moREAU')).to.deep.equal(['carol@example.com', 'erin@example.com']);
        expect(await matches('SNAKE')).to.deep.equal(['camel@example.com', 'snake@example.com']);
      });

      it('matches anywhere in the text, not only at the start', async () => {
        expect(await matches('vak')).to.deep.equal(['anna@example.com', 'dave@example.com']);
      });

      it('counts only the matching users, and pages within them', async () => {
        const page = await list({ q: 'alex', sort: 'first_name', order: 'asc', page: 2, perPage: 2 });
        expect(page.total).to.equal(3);
        expect(emailsOf(page.items)).to.deep.equal(['carol@example.com']);
      });

      it('answers an empty page, total 0, when nothing matches', async () => {
        const page = await list({ q: 'zzz' });
        expect(page.items).to.deep.equal([]);
        expect(page.total).to.equal(0);
      });

      it('matches % literally, not as "anything"', async () => {
        expect(await matches('0%')).to.deep.equal(['percent@example.com']);
        expect(await matches('%')).to.deep.equal(['percent@example.com']);
      });

      it('matches _ literally, not as "any one character"', async () => {
        expect(await matches('e_c')).to.deep.equal(['snake@example.com']);
        expect(await matches('_')).to.deep.equal(['bang@example.com', 'snake@example.com']);
      });

      it('matches beyond ASCII case-insensitively (SQLite folds only ASCII unless told otherwise)', async () => {
        await repository().add(
          aUser({ id: id('201'), email: 'emile@example.com', firstName: 'Émile', lastName: 'Zoë' }),
        );
        expect(await matches('émile')).to.deep.equal(['emile@example.com']);
        expect(await matches('ZOË')).to.deep.equal(['emile@example.com']);
      });

      it('matches ! literally, even before a wildcard character', async () => {
        expect(await matches('ow!')).to.deep.equal(['wow@example.com']);
        expect(await matches('!_')).to.deep.equal(['bang@example.com']);
        expect(await matches('!')).to.deep.equal(['bang@example.com', 'wow@example.com']);
      });
    });
  });
}
