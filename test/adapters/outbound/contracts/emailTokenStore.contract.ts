import { expect } from 'chai';
import type { EmailTokenRecord, EmailTokenStore } from '../../../../src/application/ports/EmailTokenStore.js';
import { describeContract, type ContractSubject, type StoreClaims } from './databases.js';

/** A store under test, and how to make a user exist for it (SQL stores need the users row). */
export interface EmailTokenStoreUnderTest {
  readonly store: EmailTokenStore;
  registerUser(userId: string): Promise<void>;
  /** Deletes the user; given when the claims say records follow their user. */
  deleteUser?(userId: string): Promise<void>;
  /** Simulates a process restart and answers a new store on the same data. */
  restart?(): Promise<EmailTokenStore>;
}

const uuid = (prefix: string, n: number): string => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const USER_A = uuid('aaaaaaaa', 1);
const USER_B = uuid('bbbbbbbb', 2);

const NOW = new Date('2026-01-01T12:00:00.000Z');
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);
const HOUR_AGO = at(-3600);

/** A token record; selectors are 32 hex characters like the real ones, made distinct by `n`. */
const token = (n: number, userId: string, overrides: Partial<EmailTokenRecord> = {}): EmailTokenRecord => ({
  selector: `${String(n).padStart(4, '0')}${'5e1ec7'.repeat(4)}abcd`,
  verifierHash: `${'ab'.repeat(31)}${String(n).padStart(2, '0')}`,
  userId,
  purpose: 'password-reset',
  email: userId === USER_A ? 'ada@example.com' : 'bob@example.com',
  createdAt: at(n),
  expiresAt: new Date(at(3600 + n).getTime() + 123),
  ...overrides,
});

const LIMIT = { since: HOUR_AGO, perAddress: 3, perIp: 1000 };
const NO_LIMIT = { since: HOUR_AGO, perAddress: 1000, perIp: 1000 };

/** The behaviour every EmailTokenStore promises, whichever storage is behind it. */
export function emailTokenStoreContract(
  name: string,
  subject: ContractSubject<EmailTokenStoreUnderTest>,
  options: StoreClaims,
): void {
  describeContract(`EmailTokenStore contract: ${name}`, subject, (current) => {
    const store = (): EmailTokenStore => current().store;

    beforeEach(async () => {
      await current().registerUser(USER_A);
      await current().registerUser(USER_B);
    });

    describe('addWithinLimit and find', () => {
      it('stores a token and finds it by selector, every field intact, timestamps to the millisecond', async () => {
        const record = token(1, USER_A, {
          purpose: 'email-verification',
          createdAt: new Date('2026-01-01T12:00:01.234Z'),
        });
        expect(await store().addWithinLimit(record, LIMIT)).to.equal(true);
        const found = await store().find(record.selector);
        expect(found).to.deep.equal(record);
        expect(found?.createdAt.getTime()).to.equal(record.createdAt.getTime());
        expect(found?.expiresAt.getTime()).to.equal(record.expiresAt.getTime());
      });

      it('keeps a 254-character e-mail and a 128-character hash whole', async () => {
        const record = token(1, USER_A, {
          email: `${'a'.repeat(64)}@${'b'.repeat(185)}.com`,
          verifierHash: 'f'.repeat(128),
        });
        expect(record.email).to.have.length(254);
        await store().addWithinLimit(record, LIMIT);
        expect(await store().find(record.selector)).to.deep.equal(record);
      });

      it('answers undefined for an unknown selector', async () => {
        expect(await store().find('0'.repeat(32))).to.equal(undefined);
      });

      it('finds an expired token (the caller checks expiry)', async () => {
        const record = token(1, USER_A, { expiresAt: at(-10) });
        await store().addWithinLimit(record, LIMIT);
        expect(await store().find(record.selector)).to.deep.equal(record);
      });
    });

    describe('the limit', () => {
      it('refuses a 4th token of a purpose within the window, storing nothing', async () => {
        for (const n of [1, 2, 3]) expect(await store().addWithinLimit(token(n, USER_A), LIMIT)).to.equal(true);
        const fourth = token(4, USER_A);
        expect(await store().addWithinLimit(fourth, LIMIT)).to.equal(false);
        expect(await store().find(fourth.selector)).to.equal(undefined);
      });

      it('does not count a token made before the window', async () => {
        await store().addWithinLimit(token(1, USER_A, { createdAt: new Date(HOUR_AGO.getTime() - 1) }), NO_LIMIT);
        for (const n of [2, 3]) await store().addWithinLimit(token(n, USER_A), LIMIT);
        expect(await store().addWithinLimit(token(4, USER_A), LIMIT)).to.equal(true);
        expect(await store().addWithinLimit(token(5, USER_A), LIMIT)).to.equal(false);
      });

      it('counts a token made at the very start of the window', async () => {
        await store().addWithinLimit(token(1, USER_A, { createdAt: HOUR_AGO }), NO_LIMIT);
        for (const n of [2, 3]) await store().addWithinLimit(token(n, USER_A), LIMIT);
        expect(await store().addWithinLimit(token(4, USER_A), LIMIT)).to.equal(false);
      });

      it("counts only the address's own tokens of that purpose", async () => {
        for (const n of [1, 2, 3]) await store().addWithinLimit(token(n, USER_B), LIMIT);
        for (const n of [4, 5, 6])
          await store().addWithinLimit(token(n, USER_A, { purpose: 'email-verification' }), LIMIT);
        for (const n of [7, 8, 9]) expect(await store().addWithinLimit(token(n, USER_A), LIMIT)).to.equal(true);
        expect(await store().addWithinLimit(token(10, USER_A), LIMIT)).to.equal(false);
      });

      it('counts per address whichever account held it: moving the address to another account buys no mail', async () => {
        for (const n of [1, 2, 3]) await store().addWithinLimit(token(n, USER_A), LIMIT);
        const sameInbox = token(4, USER_B, { email: 'ada@example.com' });
        expect(await store().addWithinLimit(sameInbox, LIMIT)).to.equal(false);
        expect(await store().find(sameInbox.selector)).to.equal(undefined);
        expect(await store().addWithinLimit(token(5, USER_B), LIMIT)).to.equal(true);
      });

      it('refuses past the per-IP limit, for tokens of any purpose and any address, and keeps the IP', async () => {
        const perIp = { ...LIMIT, perIp: 4 };
        const fromIp = (n: number, userId: string, purpose: EmailTokenRecord['purpose']) =>
          token(n, userId, { purpose, requestedIp: '203.0.113.7' });
        const first = fromIp(1, USER_A, 'password-reset');
        expect(await store().addWithinLimit(first, perIp)).to.equal(true);
        expect(await store().find(first.selector)).to.deep.equal(first);
        expect(await store().addWithinLimit(fromIp(2, USER_A, 'email-verification'), perIp)).to.equal(true);
        expect(await store().addWithinLimit(fromIp(3, USER_B, 'password-reset'), perIp)).to.equal(true);
        expect(await store().addWithinLimit(fromIp(4, USER_B, 'email-verification'), perIp)).to.equal(true);
        expect(await store().addWithinLimit(fromIp(5, USER_B, 'password-reset'), perIp)).to.equal(false);
        // Another IP, and a token with no requester, are not counted against it.
        expect(
          await store().addWithinLimit(
            token(6, USER_B, { purpose: 'password-reset', requestedIp: '203.0.113.8' }),
            perIp,
          ),
        ).to.equal(true);
        expect(await store().addWithinLimit(token(7, USER_A, { purpose: 'email-verification' }), perIp)).to.equal(true);
      });

      it('counts spent tokens too (spending one does not buy another e-mail)', async () => {
        for (const n of [1, 2, 3]) await store().addWithinLimit(token(n, USER_A), LIMIT);
        await store().spendAll(USER_A, 'password-reset', NOW);
        expect(await store().addWithinLimit(token(4, USER_A), LIMIT)).to.equal(false);
      });
    });

    describe('spend', () => {
      it('spends once: true, then false, and a spent token is never found again', async () => {
        const record = token(1, USER_A);
        await store().addWithinLimit(record, LIMIT);
        expect(await store().spend(record.selector, NOW)).to.equal(true);
        expect(await store().find(record.selector)).to.equal(undefined);
        expect(await store().spend(record.selector, at(1))).to.equal(false);
      });

      it('answers false for an unknown selector', async () => {
        expect(await store().spend('0'.repeat(32), NOW)).to.equal(false);
      });

      it('spends only the token presented', async () => {
        await store().addWithinLimit(token(1, USER_A), LIMIT);
        await store().addWithinLimit(token(2, USER_A), LIMIT);
        await store().spend(token(1, USER_A).selector, NOW);
        expect(await store().find(token(2, USER_A).selector)).to.deep.equal(token(2, USER_A));
      });

      it('lets exactly one of 10 concurrent spenders win', async () => {
        const record = token(1, USER_A);
        await store().addWithinLimit(record, LIMIT);
        const outcomes = await Promise.all(Array.from({ length: 10 }, () => store().spend(record.selector, NOW)));
        expect(outcomes.filter(Boolean)).to.have.length(1);
      });
    });

    describe('spendAll', () => {
      it("spends every unspent token of the purpose of the user, and no other purpose's or user's", async () => {
        const resets = [token(1, USER_A), token(2, USER_A)];
        const verification = token(3, USER_A, { purpose: 'email-verification' });
        const others = token(4, USER_B);
        for (const record of [...resets, verification, others]) await store().addWithinLimit(record, NO_LIMIT);
        await store().spend(resets[0]!.selector, NOW);

        await store().spendAll(USER_A, 'password-reset', at(1));

        for (const record of resets) {
          expect(await store().find(record.selector)).to.equal(undefined);
          expect(await store().spend(record.selector, at(2))).to.equal(false);
        }
        expect(await store().find(verification.selector)).to.deep.equal(verification);
        expect(await store().find(others.selector)).to.deep.equal(others);
      });

      it("without a purpose, spends every unspent token of the user, of both purposes, and no other user's", async () => {
        const mine = [token(1, USER_A), token(2, USER_A, { purpose: 'email-verification' })];
        const others = token(3, USER_B);
        for (const record of [...mine, others]) await store().addWithinLimit(record, NO_LIMIT);
        await store().spendAll(USER_A, undefined, at(1));
        for (const record of mine) expect(await store().find(record.selector)).to.equal(undefined);
        expect(await store().find(others.selector)).to.deep.equal(others);
      });
    });

    describe('purgeExpired', () => {
      it('deletes the tokens that expired before the time, spent or not, and answers how many', async () => {
        const expired = token(1, USER_A, { expiresAt: at(-60) });
        const spentExpired = token(2, USER_B, { expiresAt: at(-1) });
        const live = token(3, USER_A, { expiresAt: at(0) });
        for (const record of [expired, spentExpired, live]) await store().addWithinLimit(record, NO_LIMIT);
        await store().spend(spentExpired.selector, at(-30));
        expect(await store().purgeExpired(NOW)).to.equal(2);
        expect(await store().find(expired.selector)).to.equal(undefined);
        expect(await store().find(live.selector)).to.deep.equal(live);
        // Gone from the limit's count too: a fresh token for the address is not held back by it.
        expect(await store().addWithinLimit(token(4, USER_A), { ...LIMIT, since: at(-7200), perAddress: 2 })).to.equal(
          true,
        );
        expect(await store().purgeExpired(NOW)).to.equal(0);
      });
    });

    if (options.followsUser) {
      it("forgets a deleted user's tokens, and no one else's", async () => {
        const { deleteUser } = current();
        if (!deleteUser) throw new Error(`${name} claims its records follow their user but cannot delete one`);
        await store().addWithinLimit(token(1, USER_A), LIMIT);
        await store().addWithinLimit(token(2, USER_B), LIMIT);
        await deleteUser(USER_A);
        expect(await store().find(token(1, USER_A).selector)).to.equal(undefined);
        expect(await store().spend(token(1, USER_A).selector, NOW)).to.equal(false);
        expect(await store().find(token(2, USER_B).selector)).to.deep.equal(token(2, USER_B));
      });
    }

    if (!options.survivesRestart) return;

    describe('restart', () => {
      it('remembers spent and unspent tokens across a restart', async () => {
        const { restart } = current();
        if (!restart) throw new Error(`${name} claims to survive a restart but cannot restart`);
        for (const n of [1, 2, 3]) await store().addWithinLimit(token(n, USER_A), LIMIT);
        await store().spend(token(1, USER_A).selector, NOW);
        const reopened = await restart();
        expect(await reopened.find(token(1, USER_A).selector)).to.equal(undefined);
        expect(await reopened.find(token(2, USER_A).selector)).to.deep.equal(token(2, USER_A));
        expect(await reopened.addWithinLimit(token(4, USER_A), LIMIT)).to.equal(false);
      });
    });
  });
}
