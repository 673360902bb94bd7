import { expect } from 'chai';
import { AesGcmSecretBox } from '../../../src/adapters/outbound/crypto/AesGcmSecretBox.js';
import { KeyedRecoveryCodes } from '../../../src/adapters/outbound/crypto/KeyedRecoveryCodes.js';
import { InMemoryTotpStore } from '../../../src/adapters/outbound/memory/InMemoryTotpStore.js';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import { LoginAttempts } from '../../../src/application/auth/LoginAttempts.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import { ConfirmTotp } from '../../../src/application/mfa/ConfirmTotp.js';
import { DisableTotp } from '../../../src/application/mfa/DisableTotp.js';
import type { SignInOutcome } from '../../../src/application/mfa/SignInGate.js';
import { StartTotp } from '../../../src/application/mfa/StartTotp.js';
import { VerifySecondFactor } from '../../../src/application/mfa/VerifySecondFactor.js';
import { ConflictError, RateLimitedError, ValidationError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import {
  InvalidAccountTokenError,
  InvalidSecondFactorError,
  MfaEnrollmentRequiredError,
} from '../../../src/domain/user/UserErrors.js';
import { FakeOneTimePasswords } from '../../support/FakeOneTimePasswords.js';
import { aUser, DEFAULT_PASSWORD } from '../../support/mothers.js';
import { TEST_SECRETS_KEY } from '../../support/oneTimeSecrets.js';
import { testOneTimeSecrets } from '../../support/oneTimeSecrets.js';
import { A_CLIENT, newWorld, rejectionOf, type World } from '../world.js';

const IP = A_CLIENT.ip!;

describe('TOTP and the two-step sign-in (use cases, in memory)', () => {
  let world: World;
  let totp: InMemoryTotpStore;
  let otp: FakeOneTimePasswords;
  let box: AesGcmSecretBox;
  let recoveryCodes: KeyedRecoveryCodes;
  let start: StartTotp;
  let confirm: ConfirmTotp;
  let disable: DisableTotp;
  let verify: VerifySecondFactor;
  let login: LoginUser;
  let ada: User;

  beforeEach(async () => {
    world = newWorld();
    totp = new InMemoryTotpStore();
    otp = new FakeOneTimePasswords();
    box = new AesGcmSecretBox(TEST_SECRETS_KEY);
    recoveryCodes = new KeyedRecoveryCodes(TEST_SECRETS_KEY);
    const deps = {
      users: world.users,
      hasher: world.hasher,
      throttle: world.throttle,
      totp,
      otp,
      box,
      recoveryCodes,
      transactions: world.jobs,
      clock: world.clock,
      challenges: world.challenges,
      secrets: testOneTimeSecrets(),
      issuer: world.sessions,
      attempts: new LoginAttempts(world.throttle),
    };
    start = new StartTotp({ ...deps, issuerName: 'Portico' });
    confirm = new ConfirmTotp(deps);
    disable = new DisableTotp(deps);
    verify = new VerifySecondFactor(deps);
    login = new LoginUser({ ...deps, gate: world.gate });
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  const password = (userId = ada.id, currentPassword = DEFAULT_PASSWORD) =>
    start.execute({ userId, currentPassword, clientIp: IP });
  const attempt = async (): Promise<SignInOutcome> =>
    (await login.execute({ email: 'ada@example.com', password: DEFAULT_PASSWORD, clientIp: IP, userAgent: null }))
      .outcome;
  const mfaTokenOf = (outcome: SignInOutcome): string => {
    if (outcome.kind !== 'second-factor') throw new Error('expected the sign-in to wait for a second factor');
    return outcome.mfaToken;
  };
  const second = (mfaToken: string, code: string) =>
    verify.execute({ mfaToken, code, client: { ip: IP, userAgent: null } });

  /** TOTP on for ada: the secret, and the recovery codes it answered. */
  const enrol = async (): Promise<{ secret: string; codes: string[] }> => {
    const { secret } = await password();
    const { recoveryCodes: codes } = await confirm.execute({
      userId: ada.id,
      code: otp.codeAt(secret, world.clock.now()),
    });
    return { secret, codes };
  };

  describe('turning TOTP on', () => {
    it('needs the current password, and counts a wrong one toward the login throttle', async () => {
      const error = await rejectionOf(password(ada.id, 'not the password'));
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as ValidationError).fields).to.deep.equal([{ field: 'current_password', message: 'is incorrect' }]);
      expect((await world.throttle.status(`ada@example.com|${IP}`)).remaining).to.equal(4);
    });

    it('stores the secret sealed, never as it was answered', async () => {
      const { secret, otpauthUri } = await password();
      expect(otpauthUri).to.include(`secret=${secret}`);
      const stored = await totp.find(ada.id);
      expect(stored?.sealedSecret).to.not.include(secret);
      expect(box.open(stored!.sealedSecret, ada.id)).to.equal(secret);
      expect(box.open(stored!.sealedSecret, 'another user'), 'bound to its user').to.equal(undefined);
      expect(stored?.confirmedAt).to.equal(null);
    });

    it('changes nothing for sign-in until confirmed', async () => {
      await password();
      expect((await attempt()).kind).to.equal('session');
    });

    it('refuses a wrong code, and confirms with the right one: ten distinct recovery codes, kept only hashed', async () => {
      const { secret } = await password();
      const wrong = await rejectionOf(
        confirm.execute({ userId: ada.id, code: otp.codeAt(secret, world.clock.now(), 5) }),
      );
      expect(wrong).to.be.instanceOf(ValidationError);
      const { recoveryCodes: codes } = await confirm.execute({
        userId: ada.id,
        code: otp.codeAt(secret, world.clock.now()),
      });
      expect(new Set(codes).size).to.equal(10);
      const kept = totp.storedRecoveryCodeHashes(ada.id);
      expect(kept).to.have.length(10);
      for (const code of codes) expect(kept).to.not.include(code);
      expect((await world.users.findById(ada.id))?.mfaEnabled).to.equal(true);
    });

    it('refuses to start again while TOTP is on, and to confirm twice', async () => {
      const { secret } = await enrol();
      expect(await rejectionOf(password())).to.be.instanceOf(ConflictError);
      const again = await rejectionOf(
        confirm.execute({ userId: ada.id, code: otp.codeAt(secret, world.clock.now(), 1) }),
      );
      expect(again).to.be.instanceOf(ConflictError);
    });
  });

  describe('signing in with TOTP on', () => {
    it('answers no tokens for the password: a challenge with the methods, then a session signed in by pwd and otp', async () => {
      const { secret } = await enrol();
      const issuedBefore = world.tokens.issuedCount;
      const outcome = await attempt();
      expect(outcome).to.deep.include({ kind: 'second-factor', methods: ['totp', 'recovery_code'] });
      expect(world.tokens.issuedCount, 'no token for the password alone').to.equal(issuedBefore);
      world.clock.advance(30_000);
      const { user, tokens } = await second(mfaTokenOf(outcome), otp.codeAt(secret, world.clock.now()));
      expect(user.id).to.equal(ada.id);
      expect(world.tokens.inspect(tokens.accessToken)?.amr).to.deep.equal(['pwd', 'otp']);
      expect(await world.sessionStore.listActive(ada.id, world.clock.now())).to.have.length(1);
    });

    it('accepts a code once: its step, and every earlier one, is refused after', async () => {
      const { secret } = await enrol();
      world.clock.advance(30_000);
      const now = world.clock.now();
      await second(mfaTokenOf(await attempt()), otp.codeAt(secret, now));
      const token = mfaTokenOf(await attempt());
      expect(await rejectionOf(second(token, otp.codeAt(secret, now)))).to.be.instanceOf(InvalidSecondFactorError);
      expect(await rejectionOf(second(token, otp.codeAt(secret, now, -1)))).to.be.instanceOf(InvalidSecondFactorError);
      // The wrong codes did not spend the token: the next step's code works with it.
      await second(token, otp.codeAt(secret, now, 1));
    });

    it('refuses codes two steps away', async () => {
      const { secret } = await enrol();
      world.clock.advance(60_000);
      const token = mfaTokenOf(await attempt());
      expect(await rejectionOf(second(token, otp.codeAt(secret, world.clock.now(), 2)))).to.be.instanceOf(
        InvalidSecondFactorError,
      );
    });

    it('takes each recovery code once', async () => {
      const { codes } = await enrol();
      await second(mfaTokenOf(await attempt()), codes[0]!);
      expect(await rejectionOf(second(mfaTokenOf(await attempt()), codes[0]!))).to.be.instanceOf(
        InvalidSecondFactorError,
      );
      expect(await totp.recoveryCodesLeft(ada.id)).to.equal(9);
    });

    it('spends the mfa_token on its first success, and lets it expire after five minutes', async () => {
      const { codes } = await enrol();
      const token = mfaTokenOf(await attempt());
      await second(token, codes[0]!);
      expect(await rejectionOf(second(token, codes[1]!))).to.be.instanceOf(InvalidAccountTokenError);
      const late = mfaTokenOf(await attempt());
      world.clock.advance(5 * 60_000);
      expect(await rejectionOf(second(late, codes[1]!))).to.be.instanceOf(InvalidAccountTokenError);
      expect(await rejectionOf(second('not a token', codes[1]!))).to.be.instanceOf(InvalidAccountTokenError);
    });

    it('counts wrong codes toward the login throttle: past it, even the right code is refused', async () => {
      const { codes } = await enrol();
      const token = mfaTokenOf(await attempt());
      for (let i = 0; i < 5; i += 1) {
        expect(await rejectionOf(second(token, `00000${i}`))).to.be.instanceOf(InvalidSecondFactorError);
      }
      expect(await rejectionOf(second(token, codes[0]!))).to.be.instanceOf(RateLimitedError);
      expect(await rejectionOf(attempt()), 'the password step shares the count').to.be.instanceOf(RateLimitedError);
    });

    it('lets concurrent guesses check no more codes than the throttle has failures left', async () => {
      await enrol();
      const token = mfaTokenOf(await attempt());
      const errors = await Promise.all(
        Array.from({ length: 20 }, (_, i) => rejectionOf(second(token, String(100000 + i)))),
      );
      expect(errors.filter((error) => error instanceof InvalidSecondFactorError)).to.have.length(5);
      expect(errors.filter((error) => error instanceof RateLimitedError)).to.have.length(15);
    });
  });

  describe('turning TOTP off', () => {
    it('needs the current password; then a password signs in alone again', async () => {
      await enrol();
      expect(
        await rejectionOf(disable.execute({ userId: ada.id, currentPassword: 'wrong', clientIp: IP })),
      ).to.be.instanceOf(ValidationError);
      await disable.execute({ userId: ada.id, currentPassword: DEFAULT_PASSWORD, clientIp: IP });
      expect(await totp.find(ada.id)).to.equal(undefined);
      expect((await attempt()).kind).to.equal('session');
      expect(
        await rejectionOf(disable.execute({ userId: ada.id, currentPassword: DEFAULT_PASSWORD, clientIp: IP })),
      ).to.be.instanceOf(ConflictError);
    });
  });

  describe('auth.mfa.required_roles', () => {
    it('lets a user of such a role without a second factor reach only enrolment, until it has one', async () => {
      const admin = await world.given(aUser().withEmail('grace@example.com').withRole('admin'));
      const authenticate = new Authenticate(world.tokens, world.callers, world.clock, ['admin']);
      const { accessToken } = await world.sessions.start(admin, A_CLIENT);
      expect(await rejectionOf(authenticate.execute({ accessToken }))).to.be.instanceOf(MfaEnrollmentRequiredError);
      expect(await authenticate.execute({ accessToken, enrolling: true })).to.include({ userId: admin.id });

      const { secret } = await start.execute({ userId: admin.id, currentPassword: DEFAULT_PASSWORD, clientIp: IP });
      await confirm.execute({ userId: admin.id, code: otp.codeAt(secret, world.clock.now()) });
      expect(await authenticate.execute({ accessToken })).to.include({ userId: admin.id, role: 'admin' });
    });

    it('leaves the other roles alone', async () => {
      const authenticate = new Authenticate(world.tokens, world.callers, world.clock, ['admin']);
      const { accessToken } = await world.sessions.start(ada, A_CLIENT);
      expect(await authenticate.execute({ accessToken })).to.include({ userId: ada.id });
    });
  });
});
