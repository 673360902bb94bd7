import { expect } from 'chai';
import type { RefreshTokenRecord, RefreshTokenStore } from '../../../../src/application/ports/RefreshTokenStore.js';
import { describeContract, type ContractSubject } from './databases.js';

/** A store under test, and how to make a user exist for it (SQL stores need the users row). */
export interface RefreshTokenStoreUnderTest {
  readonly store: RefreshTokenStore;
  registerUser(userId: string): Promise<void>;
  /**
   * Simulates a process restart (close the database, connect again) and answers a new store on
   * it; absent where records cannot outlive the process.
   */
  restart?(): Promise<RefreshTokenStore>;
}

const uuid = (prefix: string, n: number): string => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const USER_A = uuid('aaaaaaaa', 1);
const USER_B = uuid('bbbbbbbb', 2);
const FAMILY_1 = uuid('f1f1f1f1', 1);
const FAMILY_2 = uuid('f2f2f2f2', 2);
const FAMILY_3 = uuid('f3f3f3f3', 3);

const NOW = new Date('2026-01-01T00:00:00.000Z');
const later = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);

const token = (n: number, familyId: string, userId: string): RefreshTokenRecord => ({
  id: uuid('70e70e70', n),
  familyId,
  userId,
  expiresAt: new Date('2026-01-08T00:00:00.123Z'),
});

/** The behaviour every RefreshTokenStore promises, whichever storage is behind it. */
export function refreshTokenStoreContract(
  name: string,
  subject: ContractSubject<RefreshTokenStoreUnderTest>,
  options: { readonly survivesRestart: boolean },
): void {
  describeContract(`RefreshTokenStore contract: ${name}`, subject, (current) => {
    const store = (): RefreshTokenStore => current().store;

    // Two users; user A has two families (two logins), user B one.
    const a1 = token(1, FAMILY_1, USER_A);
    const a2 = token(2, FAMILY_1, USER_A);
    const a3 = token(3, FAMILY_1, USER_A);
    const a4 = token(4, FAMILY_2, USER_A);
    const b1 = token(5, FAMILY_3, USER_B);

    beforeEach(async () => {
      await current().registerUser(USER_A);
      await current().registerUser(USER_B);
      for (const record of [a1, a2, a3, a4, b1]) await store().add(record);
    });

    describe('find', () => {
      it('answers the stored record, expiry to the millisecond', async () => {
        const found = await store().find(a2.id);
        expect(found).to.deep.equal(a2);
        expect(found?.expiresAt.getTime()).to.equal(a2.expiresAt.getTime());
      });

      it('answers undefined for an unknown token', async () => {
        expect(await store().find(uuid('deadbeef', 9))).to.equal(undefined);
      });

      it('still finds a consumed or revoked token (logout needs its family)', async () => {
        await store().consume(a1.id, NOW);
        await store().revokeFamily(FAMILY_1, NOW);
        expect(await store().find(a1.id)).to.deep.equal(a1);
        expect(await store().find(a2.id)).to.deep.equal(a2);
      });
    });

    describe('consume', () => {
      it('answers consumed, with the record, the first time', async () => {
        expect(await store().consume(a1.id, NOW)).to.deep.equal({ outcome: 'consumed', record: a1 });
      });

      it('answers reused, with the record (to find the family), every later time', async () => {
        await store().consume(a1.id, NOW);
        expect(await store().consume(a1.id, later(1))).to.deep.equal({ outcome: 'reused', record: a1 });
        expect(await store().consume(a1.id, later(2))).to.deep.equal({ outcome: 'reused', record: a1 });
      });

      it('spends only the token presented, not its family', async () => {
        await store().consume(a1.id, NOW);
        expect((await store().consume(a2.id, NOW)).outcome).to.equal('consumed');
      });

      it('answers unknown, without a record, for a token never added', async () => {
        expect(await store().consume(uuid('deadbeef', 9), NOW)).to.deep.equal({ outcome: 'unknown' });
      });

      it('lets exactly one of 10 concurrent uses of one token win', async () => {
        const outcomes = await Promise.all(Array.from({ length: 10 }, () => store().consume(a1.id, NOW)));
        const counts = outcomes.reduce<Record<string, number>>(
          (acc, o) => ({ ...acc, [o.outcome]: (acc[o.outcome] ?? 0) + 1 }),
          {},
        );
        expect(counts).to.deep.equal({ consumed: 1, reused: 9 });
      });
    });

    describe('revokeFamily', () => {
      it('answers revoked for every token of the family: spent, unspent, and already revoked', async () => {
        await store().consume(a1.id, NOW);
        await store().revokeFamily(FAMILY_1, later(1));

        for (const record of [a1, a2, a3]) {
          expect(await store().consume(record.id, later(2))).to.deep.equal({ outcome: 'revoked', record });
          // Asking again changes nothing: a revoked token is never consumed.
          expect((await store().consume(record.id, later(3))).outcome).to.equal('revoked');
        }
      });

      it("leaves the user's other families and other users alone", async () => {
        await store().revokeFamily(FAMILY_1, NOW);
        expect((await store().consume(a4.id, NOW)).outcome).to.equal('consumed');
        expect((await store().consume(b1.id, NOW)).outcome).to.equal('consumed');
      });

      it('is idempotent', async () => {
        await store().revokeFamily(FAMILY_1, NOW);
        await store().revokeFamily(FAMILY_1, later(5));
        expect((await store().consume(a2.id, later(6))).outcome).to.equal('revoked');
      });

      it('also stops a token added to the family after the revocation (a refresh racing reuse detection)', async () => {
        // The winner of a refresh adds the family's next token; reuse detected meanwhile revokes the family.
        await store().consume(a1.id, NOW);
        await store().revokeFamily(FAMILY_1, later(1));
        const next = token(6, FAMILY_1, USER_A);
        await store().add(next);
        expect((await store().consume(next.id, later(2))).outcome).to.equal('revoked');
      });

      it('does nothing for an unknown family', async () => {
        await store().revokeFamily(uuid('deadbeef', 9), NOW);
        expect((await store().consume(a1.id, NOW)).outcome).to.equal('consumed');
      });
    });

    describe('deleteForUser', () => {
      it("forgets every token of the user, in every family, and no one else's", async () => {
        await store().consume(a1.id, NOW);
        await store().deleteForUser(USER_A);

        for (const record of [a1, a2, a3, a4]) {
          expect(await store().find(record.id)).to.equal(undefined);
          expect(await store().consume(record.id, NOW)).to.deep.equal({ outcome: 'unknown' });
        }
        expect(await store().find(b1.id)).to.deep.equal(b1);
        expect((await store().consume(b1.id, NOW)).outcome).to.equal('consumed');
      });

      it('does nothing for a user with no tokens', async () => {
        await store().deleteForUser(uuid('cccccccc', 3));
        expect(await store().find(a1.id)).to.deep.equal(a1);
      });
    });

    describe('purgeExpired', () => {
      const expiring = (n: number, familyId: string, expiresAt: Date): RefreshTokenRecord => ({
        ...token(n, familyId, USER_B),
        expiresAt,
      });
      const END = a1.expiresAt;
      const after = (ms: number) => new Date(END.getTime() + ms);

      it('forgets the families whose every token expired before the time, whole, and answers how many tokens', async () => {
        await store().revokeFamily(FAMILY_1, NOW);
        // Family 4 has one token expired and one still valid: it stays whole.
        const old = expiring(6, uuid('f4f4f4f4', 4), END);
        const current = expiring(7, uuid('f4f4f4f4', 4), after(60_000));
        await store().add(old);
        await store().add(current);
        expect(await store().purgeExpired(after(1))).to.equal(5);
        for (const record of [a1, a2, a3, a4, b1]) expect(await store().find(record.id)).to.equal(undefined);
        expect(await store().find(old.id)).to.deep.equal(old);
        expect((await store().consume(current.id, NOW)).outcome).to.equal('consumed');
        expect(await store().purgeExpired(after(1))).to.equal(0);
      });

      it('keeps a revoked family while any of its tokens is valid: a token added after the revocation stays revoked', async () => {
        await store().revokeFamily(FAMILY_1, NOW);
        const racing = expiring(8, FAMILY_1, after(60_000));
        await store().add({ ...racing, userId: USER_A });
        await store().purgeExpired(after(1));
        expect((await store().consume(racing.id, NOW)).outcome).to.equal('revoked');
      });

      it('keeps every token that expires at the time or later', async () => {
        expect(await store().purgeExpired(END)).to.equal(0);
        expect(await store().find(a1.id)).to.deep.equal(a1);
      });
    });

    if (!options.survivesRestart) return;

    describe('restart', () => {
      it('remembers spent, unspent and revoked tokens across a restart', async () => {
        const { restart } = current();
        if (!restart) throw new Error(`${name} claims to survive a restart but cannot restart`);
        await store().consume(a1.id, NOW);
        await store().consume(a4.id, NOW);
        await store().revokeFamily(FAMILY_2, NOW);

        const reopened = await restart();

        expect(await reopened.find(a2.id)).to.deep.equal(a2);
        expect(await reopened.consume(a1.id, later(1))).to.deep.equal({ outcome: 'reused', record: a1 });
        expect((await reopened.consume(a4.id, later(1))).outcome).to.equal('revoked');
        expect((await reopened.consume(a2.id, later(1))).outcome).to.equal('consumed');
      });
    });
  });
}
