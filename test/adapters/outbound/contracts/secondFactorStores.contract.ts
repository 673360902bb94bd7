import { expect } from 'chai';
import type { MfaChallenge, MfaChallengeStore } from '../../../../src/application/ports/MfaChallengeStore.js';
import type { TotpEnrolment, TotpStore } from '../../../../src/application/ports/TotpStore.js';
import { describeContract, type ContractSubject, type StoreClaims } from './databases.js';

/** The second-factor stores under test, and how to make a user exist for them (SQL stores need the users row). */
export interface SecondFactorStoresUnderTest {
  readonly totp: TotpStore;
  readonly challenges: MfaChallengeStore;
  registerUser(userId: string): Promise<void>;
  /** Deletes the user; given when the claims say records follow their user. */
  deleteUser?(userId: string): Promise<void>;
}

const USER_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const USER_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const NOW = new Date('2026-01-01T12:00:00.000Z');
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);
const hash = (n: number): string => `${'c0de'.repeat(15)}${String(n).padStart(4, '0')}`;

const enrolment = (userId: string, sealedSecret = 'v1.sealed-secret'): TotpEnrolment => ({
  userId,
  sealedSecret,
  confirmedAt: null,
  lastUsedStep: null,
  createdAt: new Date('2026-01-01T11:59:00.123Z'),
});

const challenge = (selector: string, userId: string): MfaChallenge => ({
  selector,
  verifierHash: 'ab'.repeat(32),
  userId,
  methods: ['pwd'],
  createdAt: NOW,
  expiresAt: at(300),
});

/** The behaviour every TotpStore and MfaChallengeStore promises, whichever storage is behind them. */
export function secondFactorStoresContract(
  name: string,
  subject: ContractSubject<SecondFactorStoresUnderTest>,
  options: Pick<StoreClaims, 'followsUser'>,
): void {
  describeContract(`TotpStore and MfaChallengeStore contract: ${name}`, subject, (current) => {
    const totp = (): TotpStore => current().totp;
    const challenges = (): MfaChallengeStore => current().challenges;

    beforeEach(async () => {
      await current().registerUser(USER_A);
      await current().registerUser(USER_B);
    });

    it('begins an enrolment, replaces it while unconfirmed, and never once confirmed', async () => {
      expect(await totp().begin(enrolment(USER_A, 'v1.first'))).to.equal(true);
      expect(await totp().begin(enrolment(USER_A, 'v1.second'))).to.equal(true);
      expect(await totp().find(USER_A)).to.deep.equal(enrolment(USER_A, 'v1.second'));
      expect(await totp().confirm(USER_A, NOW, 41, [hash(1), hash(2)])).to.equal(true);
      expect(await totp().begin(enrolment(USER_A, 'v1.third'))).to.equal(false);
      expect(await totp().find(USER_A)).to.deep.equal({
        ...enrolment(USER_A, 'v1.second'),
        confirmedAt: NOW,
        lastUsedStep: 41,
      });
      expect(await totp().confirm(USER_A, NOW, 42, [hash(3)]), 'confirmed once').to.equal(false);
      expect(await totp().confirm(USER_B, NOW, 42, [hash(3)]), 'nothing to confirm').to.equal(false);
    });

    it('uses each step once, and never one at or before the last used', async () => {
      await totp().begin(enrolment(USER_A));
      expect(await totp().useStep(USER_A, 50), 'not confirmed yet').to.equal(false);
      await totp().confirm(USER_A, NOW, 50, []);
      expect(await totp().useStep(USER_A, 50)).to.equal(false);
      expect(await totp().useStep(USER_A, 49)).to.equal(false);
      const racing = await Promise.all([totp().useStep(USER_A, 51), totp().useStep(USER_A, 51)]);
      expect(racing.filter(Boolean)).to.have.length(1);
      expect((await totp().find(USER_A))?.lastUsedStep).to.equal(51);
    });

    it('spends each recovery code once, only its own user’s', async () => {
      await totp().begin(enrolment(USER_A));
      await totp().confirm(USER_A, NOW, 1, [hash(1), hash(2)]);
      expect(await totp().useRecoveryCode(USER_B, hash(1), NOW)).to.equal(false);
      const racing = await Promise.all([
        totp().useRecoveryCode(USER_A, hash(1), NOW),
        totp().useRecoveryCode(USER_A, hash(1), NOW),
      ]);
      expect(racing.filter(Boolean)).to.have.length(1);
      expect(await totp().recoveryCodesLeft(USER_A)).to.equal(1);
    });

    it('removes the enrolment with its recovery codes', async () => {
      await totp().begin(enrolment(USER_A));
      await totp().confirm(USER_A, NOW, 1, [hash(1)]);
      expect(await totp().remove(USER_A)).to.equal(true);
      expect(await totp().find(USER_A)).to.equal(undefined);
      expect(await totp().recoveryCodesLeft(USER_A)).to.equal(0);
      expect(await totp().remove(USER_A)).to.equal(false);
    });

    it('finds a challenge until it is spent or expires; of concurrent spends one wins', async () => {
      await challenges().add(challenge('sel-1', USER_A));
      expect(await challenges().find('sel-1', NOW)).to.deep.equal(challenge('sel-1', USER_A));
      expect(await challenges().find('sel-1', at(300)), 'expired').to.equal(undefined);
      expect(await challenges().spend('sel-1', at(300)), 'expired').to.equal(false);
      const racing = await Promise.all([challenges().spend('sel-1', NOW), challenges().spend('sel-1', NOW)]);
      expect(racing.filter(Boolean)).to.have.length(1);
      expect(await challenges().find('sel-1', NOW)).to.equal(undefined);
      await challenges().add(challenge('sel-2', USER_B));
      expect(await challenges().purgeExpired(at(301))).to.equal(2);
    });

    if (options.followsUser) {
      it('goes with its user: deleting the user deletes the enrolment, the codes and the challenges', async () => {
        await totp().begin(enrolment(USER_A));
        await totp().confirm(USER_A, NOW, 1, [hash(1)]);
        await challenges().add(challenge('sel-3', USER_A));
        await current().deleteUser!(USER_A);
        expect(await totp().find(USER_A)).to.equal(undefined);
        expect(await totp().recoveryCodesLeft(USER_A)).to.equal(0);
        expect(await challenges().find('sel-3', NOW)).to.equal(undefined);
      });
    }
  });
}
