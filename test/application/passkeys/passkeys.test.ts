import { expect } from 'chai';
import { InMemoryPasskeyChallengeStore } from '../../../src/adapters/outbound/memory/InMemoryPasskeyChallengeStore.js';
import { InMemoryPasskeyStore } from '../../../src/adapters/outbound/memory/InMemoryPasskeyStore.js';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import { LoginAttempts } from '../../../src/application/auth/LoginAttempts.js';
import type { SignInOutcome } from '../../../src/application/mfa/SignInGate.js';
import { CeremonyChallenges, PASSKEY_CHALLENGE_TTL_MS } from '../../../src/application/passkeys/CeremonyChallenges.js';
import { ListPasskeys } from '../../../src/application/passkeys/ListPasskeys.js';
import { RegisterPasskey } from '../../../src/application/passkeys/RegisterPasskey.js';
import { RemovePasskey } from '../../../src/application/passkeys/RemovePasskey.js';
import { SignInWithPasskey } from '../../../src/application/passkeys/SignInWithPasskey.js';
import { StartPasskeyRegistration } from '../../../src/application/passkeys/StartPasskeyRegistration.js';
import { StartPasskeySignIn } from '../../../src/application/passkeys/StartPasskeySignIn.js';
import type { WebAuthnCredentialJson } from '../../../src/application/ports/WebAuthn.js';
import { ConflictError, ValidationError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import {
  InvalidAccountTokenError,
  MfaEnrollmentRequiredError,
  PasskeyNotFoundError,
  PasskeyRefusedError,
} from '../../../src/domain/user/UserErrors.js';
import { InMemoryIdentityStore } from '../../../src/adapters/outbound/memory/InMemoryIdentityStore.js';
import { FakeWebAuthn, fakeCredential } from '../../support/FakeWebAuthn.js';
import { aUser, DEFAULT_PASSWORD } from '../../support/mothers.js';
import { testOneTimeSecrets } from '../../support/oneTimeSecrets.js';
import { A_CLIENT, newWorld, rejectionOf, type World } from '../world.js';

describe('passkeys (use cases, in memory, a fake WebAuthn port)', () => {
  let world: World;
  let passkeys: InMemoryPasskeyStore;
  let identities: InMemoryIdentityStore;
  let challenges: InMemoryPasskeyChallengeStore;
  let webAuthn: FakeWebAuthn;
  let ada: User;

  /** The use cases, with user verification required or not. */
  const useCases = (requireUserVerification = true) => {
    const deps = {
      users: world.users,
      passkeys,
      identities,
      ceremonies: new CeremonyChallenges({ challenges, secrets: testOneTimeSecrets(), clock: world.clock }),
      webAuthn,
      issuer: world.sessions,
      gate: world.gate,
      transactions: world.jobs,
      ids: world.ids,
      clock: world.clock,
      requireUserVerification,
    };
    return {
      startRegistration: new StartPasskeyRegistration(deps),
      register: new RegisterPasskey(deps),
      list: new ListPasskeys(deps),
      remove: new RemovePasskey(deps),
      startSignIn: new StartPasskeySignIn(deps),
      signIn: new SignInWithPasskey(deps),
    };
  };
  let uses: ReturnType<typeof useCases>;

  beforeEach(async () => {
    world = newWorld();
    passkeys = new InMemoryPasskeyStore();
    identities = new InMemoryIdentityStore();
    challenges = new InMemoryPasskeyChallengeStore();
    webAuthn = new FakeWebAuthn();
    uses = useCases();
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  /** A credential made for the user's registration options (the fake authenticator's answer). */
  const created = async (userId: string, credentialId: string, answer = {}): Promise<WebAuthnCredentialJson> =>
    fakeCredential(await uses.startRegistration.execute({ userId }), 'create', credentialId, answer);

  const enrol = async (userId = ada.id, credentialId = 'cred-1', name?: string) =>
    uses.register.execute({
      userId,
      credential: await created(userId, credentialId),
      ...(name === undefined ? {} : { name }),
    });

  const asserted = async (credentialId: string, answer = {}): Promise<WebAuthnCredentialJson> =>
    fakeCredential(await uses.startSignIn.execute(), 'get', credentialId, answer);

  const signIn = async (credential: WebAuthnCredentialJson) => uses.signIn.execute({ credential, client: A_CLIENT });

  const session = (outcome: SignInOutcome) => {
    if (outcome.kind !== 'session') throw new Error('expected a session');
    return outcome.tokens;
  };

  describe('registration', () => {
    it('asks for a discoverable credential of the user, excluding its passkeys, verification as configured', async () => {
      await enrol(ada.id, 'cred-1');
      await uses.startRegistration.execute({ userId: ada.id });
      const request = webAuthn.registrations.at(-1)!;
      expect(request.user).to.deep.equal({ id: ada.id, name: 'ada@example.com', displayName: 'Ada Lovelace' });
      expect(request.exclude.map((p) => p.credentialId)).to.deep.equal(['cred-1']);
      expect(request.userVerification).to.equal('required');
      expect(request.timeoutMs).to.equal(PASSKEY_CHALLENGE_TTL_MS);
      await useCases(false).startRegistration.execute({ userId: ada.id });
      expect(webAuthn.registrations.at(-1)!.userVerification).to.equal('preferred');
    });

    it('stores the passkey and turns hasPasskey on, named Passkey <n> unless named', async () => {
      const first = await enrol(ada.id, 'cred-1', 'Laptop');
      const second = await enrol(ada.id, 'cred-2');
      expect(first).to.include({ userId: ada.id, credentialId: 'cred-1', name: 'Laptop', publicKey: 'key-of-cred-1' });
      expect(second.name).to.equal('Passkey 2');
      expect(first.lastUsedAt).to.equal(null);
      expect((await world.users.findById(ada.id))?.hasPasskey).to.equal(true);
      expect((await uses.list.execute({ userId: ada.id })).map((p) => p.id)).to.deep.equal([first.id, second.id]);
    });

    it('spends the challenge: once, only for the user it was made for, only before it expires', async () => {
      const grace = await world.given(aUser().withEmail('grace@example.com'));
      const credential = await created(ada.id, 'cred-1');
      expect(
        await rejectionOf(uses.register.execute({ userId: grace.id, credential })),
        'another user',
      ).to.be.instanceOf(InvalidAccountTokenError);
      // Presented by another user, the challenge is left unspent: its own user still registers with it.
      await uses.register.execute({ userId: ada.id, credential });
      expect(await rejectionOf(uses.register.execute({ userId: ada.id, credential })), 'replayed').to.be.instanceOf(
        InvalidAccountTokenError,
      );
      const late = await created(ada.id, 'cred-2');
      world.clock.advance(PASSKEY_CHALLENGE_TTL_MS);
      expect(
        await rejectionOf(uses.register.execute({ userId: ada.id, credential: late })),
        'expired',
      ).to.be.instanceOf(InvalidAccountTokenError);
      const signInChallenge = fakeCredential(await uses.startSignIn.execute(), 'create', 'cred-3');
      expect(
        await rejectionOf(uses.register.execute({ userId: ada.id, credential: signInChallenge })),
        'a sign-in challenge',
      ).to.be.instanceOf(InvalidAccountTokenError);
    });

    it('refuses a credential that does not verify, or lacks user verification while required', async () => {
      const error = await rejectionOf(
        uses.register.execute({
          userId: ada.id,
          credential: await created(ada.id, 'c', { origin: 'https://evil.example' }),
        }),
      );
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as ValidationError).fields.map((f) => f.field)).to.deep.equal(['response']);
      expect(
        await rejectionOf(
          uses.register.execute({ userId: ada.id, credential: await created(ada.id, 'c', { userVerified: false }) }),
        ),
      ).to.be.instanceOf(ValidationError);
      expect((await world.users.findById(ada.id))?.hasPasskey).to.equal(false);
      uses = useCases(false);
      await uses.register.execute({ userId: ada.id, credential: await created(ada.id, 'c', { userVerified: false }) });
      expect((await world.users.findById(ada.id))?.hasPasskey).to.equal(true);
    });

    it('refuses a credential registered already (409)', async () => {
      const grace = await world.given(aUser().withEmail('grace@example.com'));
      await enrol(ada.id, 'cred-1');
      expect(await rejectionOf(enrol(grace.id, 'cred-1'))).to.be.instanceOf(ConflictError);
      expect((await world.users.findById(grace.id))?.hasPasskey).to.equal(false);
    });
  });

  describe('removal', () => {
    it('removes only the caller’s passkey; hasPasskey goes off with the last', async () => {
      const grace = await world.given(aUser().withEmail('grace@example.com'));
      const first = await enrol(ada.id, 'cred-1');
      const second = await enrol(ada.id, 'cred-2');
      expect(await rejectionOf(uses.remove.execute({ userId: grace.id, passkeyId: first.id }))).to.be.instanceOf(
        PasskeyNotFoundError,
      );
      await uses.remove.execute({ userId: ada.id, passkeyId: first.id });
      expect((await world.users.findById(ada.id))?.hasPasskey).to.equal(true);
      await uses.remove.execute({ userId: ada.id, passkeyId: second.id });
      expect((await world.users.findById(ada.id))?.hasPasskey).to.equal(false);
      expect(await uses.list.execute({ userId: ada.id })).to.deep.equal([]);
    });

    it('never removes the last way in: an account with no password keeps its last passkey until an identity is linked', async () => {
      const linus = await world.given(aUser().withEmail('linus@example.com').withoutPassword());
      const only = await enrol(linus.id, 'cred-9');
      expect(await rejectionOf(uses.remove.execute({ userId: linus.id, passkeyId: only.id }))).to.be.instanceOf(
        ConflictError,
      );
      expect(await uses.list.execute({ userId: linus.id })).to.have.length(1);
      expect((await world.users.findById(linus.id))?.hasPasskey).to.equal(true);
      await identities.add({
        id: 'a1b2c3d4-0000-4000-8000-000000000001',
        userId: linus.id,
        issuer: 'https://id.example',
        subject: 'linus',
        email: 'linus@example.com',
        createdAt: world.clock.now(),
      });
      await uses.remove.execute({ userId: linus.id, passkeyId: only.id });
      expect((await world.users.findById(linus.id))?.hasPasskey).to.equal(false);
    });
  });

  describe('sign-in', () => {
    it('signs in with user verification: a session at once, amr hwk, the counter and the time of use kept', async () => {
      await enrol(ada.id, 'cred-1');
      const { user, outcome } = await signIn(await asserted('cred-1', { counter: 7 }));
      expect(user.id).to.equal(ada.id);
      const claims = await world.tokens.verifyAccessToken(session(outcome).accessToken);
      expect(claims?.amr).to.deep.equal(['hwk']);
      const [stored] = await passkeys.listOf(ada.id);
      expect(stored).to.include({ counter: 7 });
      expect(stored?.lastUsedAt).to.deep.equal(world.clock.now());
    });

    it('is two factors: a user with TOTP on still gets a session at once', async () => {
      await enrol(ada.id, 'cred-1');
      await world.users.setSecondFactors(ada.id, { mfaEnabled: true }, world.clock.now());
      expect((await signIn(await asserted('cred-1', { counter: 1 }))).outcome.kind).to.equal('session');
    });

    it('refuses an unknown credential, a bad signature or origin, and a spent or expired challenge', async () => {
      await enrol(ada.id, 'cred-1');
      expect(await rejectionOf(signIn(await asserted('cred-9')))).to.be.instanceOf(PasskeyRefusedError);
      expect(await rejectionOf(signIn(await asserted('cred-1', { publicKey: 'forged' })))).to.be.instanceOf(
        PasskeyRefusedError,
      );
      expect(await rejectionOf(signIn(await asserted('cred-1', { origin: 'https://evil.example' })))).to.be.instanceOf(
        PasskeyRefusedError,
      );
      const once = await asserted('cred-1', { counter: 1 });
      await signIn(once);
      expect(await rejectionOf(signIn(once)), 'replayed').to.be.instanceOf(InvalidAccountTokenError);
      const racing = await asserted('cred-1', { counter: 2 });
      const results = await Promise.allSettled([signIn(racing), signIn(racing)]);
      expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
      const late = await asserted('cred-1', { counter: 3 });
      world.clock.advance(PASSKEY_CHALLENGE_TTL_MS);
      expect(await rejectionOf(signIn(late)), 'expired').to.be.instanceOf(InvalidAccountTokenError);
      const registration = fakeCredential(await uses.startRegistration.execute({ userId: ada.id }), 'get', 'cred-1');
      expect(await rejectionOf(signIn(registration)), 'a registration challenge').to.be.instanceOf(
        InvalidAccountTokenError,
      );
    });

    it('refuses a counter that does not move forward, unless the authenticator keeps none', async () => {
      await enrol(ada.id, 'cred-1');
      await signIn(await asserted('cred-1', { counter: 0 }));
      await signIn(await asserted('cred-1', { counter: 0 }));
      await signIn(await asserted('cred-1', { counter: 5 }));
      for (const counter of [5, 4, 0]) {
        const error = await rejectionOf(signIn(await asserted('cred-1', { counter })));
        expect(error, `counter ${counter}`).to.be.instanceOf(PasskeyRefusedError);
        expect((error as Error).message).to.equal('signature counter did not advance');
      }
      await signIn(await asserted('cred-1', { counter: 6 }));
    });

    it('refuses an assertion without user verification while it is required', async () => {
      await enrol(ada.id, 'cred-1');
      const error = await rejectionOf(signIn(await asserted('cred-1', { userVerified: false })));
      expect(error).to.be.instanceOf(PasskeyRefusedError);
      expect((error as Error).message).to.equal('user verification required');
    });

    it('without user verification, allowed: one factor, through the gate (TOTP users finish with a code)', async () => {
      uses = useCases(false);
      await enrol(ada.id, 'cred-1');
      expect((await signIn(await asserted('cred-1', { userVerified: false }))).outcome.kind).to.equal('session');
      await world.users.setSecondFactors(ada.id, { mfaEnabled: true }, world.clock.now());
      const { outcome } = await signIn(await asserted('cred-1', { userVerified: false }));
      expect(outcome).to.include({ kind: 'second-factor' });
      expect(outcome.kind === 'second-factor' && outcome.methods).to.deep.equal(['totp', 'recovery_code']);
    });
  });

  describe('as a second factor', () => {
    const login = () =>
      new LoginUser({
        users: world.users,
        hasher: world.hasher,
        throttle: world.throttle,
        attempts: new LoginAttempts(world.throttle),
        gate: world.gate,
      }).execute({ email: 'ada@example.com', password: DEFAULT_PASSWORD, clientIp: A_CLIENT.ip!, userAgent: null });

    it('holds a password sign-in: methods passkey (with totp and recovery_code when TOTP is on too)', async () => {
      expect((await login()).outcome.kind).to.equal('session');
      await enrol(ada.id, 'cred-1');
      const held = (await login()).outcome;
      expect(held.kind === 'second-factor' && held.methods).to.deep.equal(['passkey']);
      await world.users.setSecondFactors(ada.id, { mfaEnabled: true }, world.clock.now());
      const both = (await login()).outcome;
      expect(both.kind === 'second-factor' && both.methods).to.deep.equal(['totp', 'recovery_code', 'passkey']);
    });

    it('opens everything to a role that needs a second factor once a passkey is registered', async () => {
      const admin = await world.given(aUser().withEmail('grace@example.com').withRole('admin'));
      const authenticate = new Authenticate(world.tokens, world.callers, world.clock, ['admin']);
      const { accessToken } = await world.sessions.start(admin, A_CLIENT);
      expect(await rejectionOf(authenticate.execute({ accessToken }))).to.be.instanceOf(MfaEnrollmentRequiredError);
      await enrol(admin.id, 'cred-admin');
      expect(await authenticate.execute({ accessToken })).to.include({ userId: admin.id, role: 'admin' });
    });
  });
});
