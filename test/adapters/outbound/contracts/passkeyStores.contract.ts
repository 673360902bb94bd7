import { expect } from 'chai';
import type { Transactions } from '../../../../src/application/ports/Jobs.js';
import type {
  PasskeyChallenge,
  PasskeyChallengeStore,
} from '../../../../src/application/ports/PasskeyChallengeStore.js';
import type { Passkey, PasskeyStore } from '../../../../src/application/ports/PasskeyStore.js';
import { describeContract, type ContractSubject, type StoreClaims } from './databases.js';

/** The passkey stores under test, and how to make a user exist for them (SQL stores need the users row). */
export interface PasskeyStoresUnderTest {
  readonly passkeys: PasskeyStore;
  readonly challenges: PasskeyChallengeStore;
  registerUser(userId: string): Promise<void>;
  /** Deletes the user; given when the claims say records follow their user. */
  deleteUser?(userId: string): Promise<void>;
  /** The database's transactions, which the SQL store joins; none in memory (every call is atomic alone). */
  transactions?: Transactions;
}

const USER_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const USER_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const NOW = new Date('2026-01-01T12:00:00.000Z');
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);

const passkey = (n: number, userId: string, overrides: Partial<Passkey> = {}): Passkey => ({
  id: `0000000${n}-0000-4000-8000-00000000000${n}`,
  userId,
  credentialId: `credential-${n}_AZaz09`,
  publicKey: `pQECAyYgASFYI${'A'.repeat(80)}${n}`,
  counter: 0,
  transports: ['hybrid', 'internal'],
  deviceType: 'multiDevice',
  backedUp: true,
  name: `Passkey ${n}`,
  createdAt: at(n),
  lastUsedAt: null,
  ...overrides,
});

const challenge = (selector: string, userId: string | null): PasskeyChallenge => ({
  selector,
  verifierHash: 'ab'.repeat(32),
  purpose: userId === null ? 'authentication' : 'registration',
  userId,
  createdAt: NOW,
  expiresAt: at(300),
});

/** The behaviour every PasskeyStore and PasskeyChallengeStore promises, whichever storage is behind them. */
export function passkeyStoresContract(
  name: string,
  subject: ContractSubject<PasskeyStoresUnderTest>,
  options: Pick<StoreClaims, 'followsUser'>,
): void {
  describeContract(`PasskeyStore and PasskeyChallengeStore contract: ${name}`, subject, (current) => {
    const passkeys = (): PasskeyStore => current().passkeys;
    const challenges = (): PasskeyChallengeStore => current().challenges;

    beforeEach(async () => {
      await current().registerUser(USER_A);
      await current().registerUser(USER_B);
    });

    it('stores passkeys as given, lists a user’s oldest first, finds one by credential id', async () => {
      expect(await passkeys().add(passkey(2, USER_A, { counter: 4_000_000_000, lastUsedAt: at(9) }))).to.equal(true);
      expect(
        await passkeys().add(passkey(1, USER_A, { transports: [], deviceType: 'singleDevice', backedUp: false })),
      ).to.equal(true);
      expect(await passkeys().add(passkey(3, USER_B))).to.equal(true);
      expect(await passkeys().listOf(USER_A)).to.deep.equal([
        passkey(1, USER_A, { transports: [], deviceType: 'singleDevice', backedUp: false }),
        passkey(2, USER_A, { counter: 4_000_000_000, lastUsedAt: at(9) }),
      ]);
      expect(await passkeys().findByCredentialId('credential-3_AZaz09')).to.deep.equal(passkey(3, USER_B));
      expect(await passkeys().findByCredentialId('credential-9')).to.equal(undefined);
      expect(await passkeys().countOf(USER_A)).to.equal(2);
      expect(await passkeys().countOf(USER_B)).to.equal(1);
    });

    it('refuses a credential id stored already, whoever holds it', async () => {
      expect(await passkeys().add(passkey(1, USER_A))).to.equal(true);
      expect(await passkeys().add({ ...passkey(2, USER_B), credentialId: passkey(1, USER_A).credentialId })).to.equal(
        false,
      );
      expect(await passkeys().listOf(USER_B)).to.deep.equal([]);
    });

    it('removes only the user’s own passkey', async () => {
      await passkeys().add(passkey(1, USER_A));
      expect(await passkeys().remove(USER_B, passkey(1, USER_A).id)).to.equal(false);
      expect(await passkeys().remove(USER_A, passkey(1, USER_A).id)).to.equal(true);
      expect(await passkeys().remove(USER_A, passkey(1, USER_A).id)).to.equal(false);
      expect(await passkeys().countOf(USER_A)).to.equal(0);
    });

    it('records a use only when the counter moves forward (or stays 0 on both sides); of concurrent ones, one', async () => {
      await passkeys().add(passkey(1, USER_A));
      const id = passkey(1, USER_A).id;
      expect(await passkeys().recordUse(id, 0, true, at(10)), 'no counter kept').to.equal(true);
      expect(await passkeys().recordUse(id, 5, false, at(20))).to.equal(true);
      expect(await passkeys().recordUse(id, 5, false, at(30)), 'the same counter').to.equal(false);
      expect(await passkeys().recordUse(id, 4, false, at(30)), 'a counter moved back').to.equal(false);
      expect(await passkeys().recordUse(id, 0, false, at(30)), 'a counter back to 0').to.equal(false);
      const racing = await Promise.all([
        passkeys().recordUse(id, 6, false, at(40)),
        passkeys().recordUse(id, 6, false, at(40)),
      ]);
      expect(racing.filter(Boolean)).to.have.length(1);
      expect(await passkeys().findByCredentialId(passkey(1, USER_A).credentialId)).to.deep.equal(
        passkey(1, USER_A, { counter: 6, backedUp: false, lastUsedAt: at(40) }),
      );
      expect(await passkeys().recordUse('00000009-0000-4000-8000-000000000009', 7, false, at(50))).to.equal(false);
    });

    it('finds a challenge until it is spent or expires, with its purpose and user; of concurrent spends one wins', async () => {
      await challenges().add(challenge('sel-1', USER_A));
      await challenges().add(challenge('sel-2', null));
      expect(await challenges().find('sel-1', NOW)).to.deep.equal(challenge('sel-1', USER_A));
      expect(await challenges().find('sel-2', NOW)).to.deep.equal(challenge('sel-2', null));
      expect(await challenges().find('sel-1', at(300)), 'expired').to.equal(undefined);
      expect(await challenges().spend('sel-1', at(300)), 'expired').to.equal(false);
      const racing = await Promise.all([challenges().spend('sel-1', NOW), challenges().spend('sel-1', NOW)]);
      expect(racing.filter(Boolean)).to.have.length(1);
      expect(await challenges().find('sel-1', NOW)).to.equal(undefined);
      expect(await challenges().spend('sel-1', NOW), 'spent').to.equal(false);
      expect(await challenges().purgeExpired(at(300))).to.equal(0);
      expect(await challenges().purgeExpired(at(301))).to.equal(2);
      expect(await challenges().find('sel-2', NOW)).to.equal(undefined);
    });

    if (options.followsUser) {
      it('goes with its user: deleting the user deletes its passkeys and its registration challenges', async () => {
        await passkeys().add(passkey(1, USER_A));
        await passkeys().add(passkey(2, USER_B));
        await challenges().add(challenge('sel-3', USER_A));
        await challenges().add(challenge('sel-4', null));
        await current().deleteUser!(USER_A);
        expect(await passkeys().listOf(USER_A)).to.deep.equal([]);
        expect(await passkeys().findByCredentialId(passkey(1, USER_A).credentialId)).to.equal(undefined);
        expect(await passkeys().countOf(USER_B)).to.equal(1);
        expect(await challenges().find('sel-3', NOW)).to.equal(undefined);
        expect(await challenges().find('sel-4', NOW)).to.deep.equal(challenge('sel-4', null));
      });

      it('joins a transaction: rolled back, nothing is stored or removed', async () => {
        const transactions = current().transactions!;
        const rollBack = new Error('roll back');
        await passkeys().add(passkey(1, USER_A));
        const failure = await transactions
          .run(async (tx) => {
            expect(await passkeys().add(passkey(2, USER_A), tx)).to.equal(true);
            expect(await passkeys().remove(USER_A, passkey(1, USER_A).id, tx)).to.equal(true);
            expect(await passkeys().countOf(USER_A, tx)).to.equal(1);
            throw rollBack;
          })
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(failure).to.equal(rollBack);
        expect((await passkeys().listOf(USER_A)).map((p) => p.id)).to.deep.equal([passkey(1, USER_A).id]);
      });

      it('counts exactly under its lock: two removals at once of a user’s two passkeys see 1 and 0 left', async () => {
        const transactions = current().transactions!;
        await passkeys().add(passkey(1, USER_A));
        await passkeys().add(passkey(2, USER_A));
        // Each removal waits (a while at most) for the other's before it counts, and for the other's count before it
        // commits: without the lock both would count 1.
        let removed = 0;
        let counted = 0;
        const both = async (done: () => number): Promise<void> => {
          for (let waited = 0; done() < 2 && waited < 300; waited += 10) await new Promise((r) => setTimeout(r, 10));
        };
        const left = await Promise.all(
          [1, 2].map((n) =>
            transactions.run(async (tx) => {
              await passkeys().remove(USER_A, passkey(n, USER_A).id, tx);
              removed += 1;
              await both(() => removed);
              const count = await passkeys().countOf(USER_A, tx);
              counted += 1;
              await both(() => counted);
              return count;
            }),
          ),
        );
        expect(left.sort()).to.deep.equal([0, 1]);
      });
    }
  });
}
