import { expect } from 'chai';
import type { Identity, IdentityStore } from '../../../../src/application/ports/IdentityStore.js';
import type { OidcCode, OidcHandoffStore, OidcState } from '../../../../src/application/ports/OidcHandoffStore.js';
import { describeContract, type ContractSubject, type StoreClaims } from './databases.js';

/** The stores of sign-ins with a provider under test, and how to make a user exist for them (SQL stores need the users row). */
export interface OidcStoresUnderTest {
  readonly identities: IdentityStore;
  readonly handoffs: OidcHandoffStore;
  registerUser(userId: string): Promise<void>;
  /** Deletes the user; given when the claims say records follow their user. */
  deleteUser?(userId: string): Promise<void>;
}

const USER_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const USER_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const ISSUER = 'https://login.example.com';
const NOW = new Date('2026-01-01T12:00:00.000Z');
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);

const identity = (n: number, userId: string, subject = `subject-${n}`, createdAt = at(n)): Identity => ({
  id: `1d000000-0000-4000-8000-00000000000${n}`,
  userId,
  issuer: ISSUER,
  subject,
  email: n % 2 === 0 ? null : `person-${n}@example.com`,
  createdAt,
});

const state = (selector: string): OidcState => ({
  selector,
  verifierHash: 'ab'.repeat(32),
  provider: 'corp',
  redirectUri: 'https://app.example/signed-in?from=app',
  sealed: 'v1.sealed-nonce-and-verifier',
  createdAt: NOW,
  expiresAt: at(600),
});

const code = (selector: string, userId: string): OidcCode => ({
  selector,
  verifierHash: 'cd'.repeat(32),
  userId,
  createdAt: NOW,
  expiresAt: at(60),
});

/** The behaviour every IdentityStore and OidcHandoffStore promises, whichever storage is behind them. */
export function oidcStoresContract(
  name: string,
  subject: ContractSubject<OidcStoresUnderTest>,
  options: Pick<StoreClaims, 'followsUser'>,
): void {
  describeContract(`IdentityStore and OidcHandoffStore contract: ${name}`, subject, (current) => {
    const identities = (): IdentityStore => current().identities;
    const handoffs = (): OidcHandoffStore => current().handoffs;

    beforeEach(async () => {
      await current().registerUser(USER_A);
      await current().registerUser(USER_B);
    });

    it('links an identity once: finds it by issuer and subject, lists a user’s oldest first', async () => {
      expect(await identities().add(identity(3, USER_A))).to.equal(true);
      expect(await identities().add(identity(1, USER_A, 'subject-1', at(5)))).to.equal(true);
      expect(await identities().add(identity(2, USER_B))).to.equal(true);
      expect(await identities().find(ISSUER, 'subject-3')).to.deep.equal(identity(3, USER_A));
      expect(await identities().find('https://elsewhere.example', 'subject-3')).to.equal(undefined);
      expect((await identities().listOf(USER_A)).map((row) => row.id)).to.deep.equal([
        identity(3, USER_A).id,
        identity(1, USER_A).id,
      ]);
      expect(await identities().listOf(USER_B)).to.deep.equal([identity(2, USER_B)]);
    });

    it('refuses a second link of one (issuer, subject), to any account, however many race', async () => {
      const racing = await Promise.all([
        identities().add(identity(1, USER_A, 'same')),
        identities().add({ ...identity(2, USER_B, 'same'), email: 'x@example.com' }),
      ]);
      expect(racing.filter(Boolean)).to.have.length(1);
      const linked = await identities().find(ISSUER, 'same');
      expect([USER_A, USER_B]).to.include(linked?.userId);
      expect(await identities().add(identity(3, USER_A, 'same'))).to.equal(false);
      expect((await identities().listOf(USER_A)).length + (await identities().listOf(USER_B)).length).to.equal(1);
    });

    it('unlinks only the user’s own identity', async () => {
      await identities().add(identity(1, USER_A));
      expect(await identities().remove(USER_B, identity(1, USER_A).id)).to.equal(false);
      expect(await identities().remove(USER_A, identity(1, USER_A).id)).to.equal(true);
      expect(await identities().remove(USER_A, identity(1, USER_A).id)).to.equal(false);
      expect(await identities().find(ISSUER, 'subject-1')).to.equal(undefined);
    });

    it('finds a state until it is spent or expires; of concurrent spends one wins', async () => {
      await handoffs().addState(state('state-1'));
      expect(await handoffs().findState('state-1', NOW)).to.deep.equal(state('state-1'));
      expect(await handoffs().findState('state-1', at(600)), 'expired').to.equal(undefined);
      expect(await handoffs().spendState('state-1', at(600)), 'expired').to.equal(false);
      const racing = await Promise.all([handoffs().spendState('state-1', NOW), handoffs().spendState('state-1', NOW)]);
      expect(racing.filter(Boolean)).to.have.length(1);
      expect(await handoffs().findState('state-1', NOW)).to.equal(undefined);
      expect(await handoffs().spendState('unknown', NOW)).to.equal(false);
    });

    it('finds a one-time code until it is spent or expires; of concurrent spends one wins', async () => {
      await handoffs().addCode(code('code-1', USER_A));
      expect(await handoffs().findCode('code-1', NOW)).to.deep.equal(code('code-1', USER_A));
      expect(await handoffs().findCode('code-1', at(60)), 'expired').to.equal(undefined);
      const racing = await Promise.all([handoffs().spendCode('code-1', NOW), handoffs().spendCode('code-1', NOW)]);
      expect(racing.filter(Boolean)).to.have.length(1);
      expect(await handoffs().findCode('code-1', NOW)).to.equal(undefined);
      // A state's selector is not a code's, nor the reverse.
      await handoffs().addState(state('shared'));
      expect(await handoffs().findCode('shared', NOW)).to.equal(undefined);
    });

    it('purges the states and codes that expired before the given time, and no other', async () => {
      await handoffs().addState(state('state-old'));
      await handoffs().addCode(code('code-old', USER_A));
      await handoffs().addState({ ...state('state-new'), expiresAt: at(10_000) });
      expect(await handoffs().purgeExpired(at(601))).to.equal(2);
      expect(await handoffs().findState('state-new', NOW)).to.not.equal(undefined);
      expect(await handoffs().purgeExpired(at(601))).to.equal(0);
    });

    if (options.followsUser) {
      it('goes with its user: deleting the user deletes its identities and one-time codes', async () => {
        await identities().add(identity(1, USER_A));
        await handoffs().addCode(code('code-2', USER_A));
        await current().deleteUser!(USER_A);
        expect(await identities().find(ISSUER, 'subject-1')).to.equal(undefined);
        expect(await handoffs().findCode('code-2', NOW)).to.equal(undefined);
      });
    }
  });
}
