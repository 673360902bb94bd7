import { expect } from 'chai';
import { ConfirmEmail } from '../../../src/application/account/ConfirmEmail.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import { RateLimitedError, UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { EmailNotVerifiedError } from '../../../src/domain/user/UserErrors.js';
import type { UserRepository } from '../../../src/domain/user/UserRepository.js';
import { aUser, DEFAULT_PASSWORD } from '../../support/mothers.js';
import { newWorld, rejectionOf, sessionIdOf, type World, signedIn } from '../world.js';

const EMAIL = 'ada@example.com';
const IP = '203.0.113.7';
const OTHER_IP = '198.51.100.9';
const WINDOW_MS = 15 * 60_000;

/** Wraps a repository to record what each `findByEmail` answered. */
function recordingLookups(users: UserRepository): {
  repo: UserRepository;
  lookups: { email: string; found: User | undefined }[];
} {
  const lookups: { email: string; found: User | undefined }[] = [];
  const repo: UserRepository = Object.create(users) as UserRepository;
  repo.findByEmail = async (email) => {
    const found = await users.findByEmail(email);
    lookups.push({ email, found });
    return found;
  };
  return { repo, lookups };
}

describe('LoginUser', () => {
  let world: World;
  let login: LoginUser;
  let ada: User;
  let lookups: { email: string; found: User | undefined }[];

  const attempt = (password: string, clientIp = IP, email = EMAIL) =>
    login.execute({ email, password, clientIp, userAgent: 'test-agent/1.0' }).then(signedIn);
  const failTimes = async (n: number, clientIp = IP, email = EMAIL): Promise<void> => {
    for (let i = 0; i < n; i++) {
      expect(await rejectionOf(attempt('wrong password', clientIp, email)), `failure ${i + 1}`).to.be.instanceOf(
        UnauthorizedError,
      );
    }
  };

  beforeEach(async () => {
    world = newWorld();
    const recorded = recordingLookups(world.users);
    lookups = recorded.lookups;
    login = new LoginUser({
      users: recorded.repo,
      hasher: world.hasher,
      throttle: world.throttle,
      gate: world.gate,
    });
    ada = await world.given(aUser().withEmail(EMAIL).withRole('moderator'));
  });

  describe('races and timing', () => {
    it('lets at most the allowed number of concurrent wrong guesses through; the rest are rate limited', async () => {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => rejectionOf(attempt('wrong password'))));
      const refused = outcomes.filter((e) => e instanceof RateLimitedError).length;
      const checked = outcomes.filter((e) => e instanceof UnauthorizedError).length;
      expect(checked).to.equal(5);
      expect(refused).to.equal(15);
      expect(world.hasher.verifyCalls).to.equal(5);
    });

    it('never refuses concurrent correct logins: extra ones wait for a running check instead', async () => {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => attempt(DEFAULT_PASSWORD)));
      expect(outcomes.every((o) => o.user.id === ada.id)).to.equal(true);
      expect(world.hasher.verifyCalls).to.equal(20);
    });

    it('prepares the decoy hash up front, so an unknown e-mail costs one comparison and no hash', async () => {
      await Promise.resolve();
      const hashesBefore = world.hasher.hashCalls;
      expect(await rejectionOf(attempt('whatever', IP, 'nobody@example.com'))).to.be.instanceOf(UnauthorizedError);
      expect(world.hasher.hashCalls).to.equal(hashesBefore);
      expect(world.hasher.verifyCalls).to.equal(1);
    });
  });

  describe('credentials', () => {
    it('logs in with the right password: the user and a token pair carrying their role', async () => {
      const { user, tokens } = await attempt(DEFAULT_PASSWORD);
      expect(user.id).to.equal(ada.id);
      expect(await world.tokens.verifyAccessToken(tokens.accessToken)).to.deep.include({
        userId: ada.id,
        role: 'moderator',
      });
      const refresh = await world.tokens.verifyRefreshToken(tokens.refreshToken);
      expect(await world.refreshTokens.find(refresh!.tokenId)).to.include({ userId: ada.id });
      expect(tokens.expiresIn).to.equal(world.tokens.accessTokenTtlSeconds);
    });

    it('starts a new refresh-token family at each login', async () => {
      const first = await attempt(DEFAULT_PASSWORD);
      const second = await attempt(DEFAULT_PASSWORD);
      const familyOf = async (token: string) =>
        (await world.refreshTokens.find((await world.tokens.verifyRefreshToken(token))!.tokenId))!.familyId;
      expect(await familyOf(first.tokens.refreshToken)).to.not.equal(await familyOf(second.tokens.refreshToken));
    });

    it('refuses a wrong password with UnauthorizedError "invalid credentials", after exactly one comparison', async () => {
      const error = await rejectionOf(attempt('not the password'));
      expect(error).to.be.instanceOf(UnauthorizedError);
      expect(error).to.include({ code: 'UNAUTHORIZED', message: 'invalid credentials' });
      expect(world.hasher.verifyCalls).to.equal(1);
      expect(world.hasher.verifications[0]).to.deep.equal({
        password: 'not the password',
        hash: ada.passwordHash,
        matched: false,
      });
    });

    it('refuses an unknown e-mail with UnauthorizedError "invalid credentials", after exactly one comparison', async () => {
      const error = await rejectionOf(attempt(DEFAULT_PASSWORD, IP, 'nobody@example.com'));
      expect(error).to.be.instanceOf(UnauthorizedError);
      expect(error).to.include({ code: 'UNAUTHORIZED', message: 'invalid credentials' });
      expect(world.hasher.verifyCalls).to.equal(1);
      expect(lookups).to.deep.equal([{ email: 'nobody@example.com', found: undefined }]);
      expect(world.hasher.verifications[0]?.hash, 'compared against a stored user hash').to.not.equal(ada.passwordHash);
      expect(world.hasher.verifications[0]?.matched).to.equal(false);
    });

    it('fails the same way for an unknown e-mail and a wrong password', async () => {
      const unknown = (await rejectionOf(attempt('wrong password', IP, 'nobody@example.com'))) as UnauthorizedError;
      const wrong = (await rejectionOf(attempt('wrong password'))) as UnauthorizedError;
      expect(unknown.constructor).to.equal(wrong.constructor);
      expect({ code: unknown.code, message: unknown.message, detail: unknown.detail }).to.deep.equal({
        code: wrong.code,
        message: wrong.message,
        detail: wrong.detail,
      });
      expect(world.hasher.verifyCalls).to.equal(2);
    });

    it('spends one comparison per unknown-e-mail login, every time', async () => {
      await failTimes(3, IP, 'nobody@example.com');
      expect(world.hasher.verifyCalls).to.equal(3);
    });

    it('issues no tokens on a failed login', async () => {
      await failTimes(1);
      expect(world.tokens.issuedCount).to.equal(0);
    });
  });

  describe('throttling failed logins per e-mail and client IP', () => {
    it('still lets the right password in after 4 failures', async () => {
      await failTimes(4);
      expect((await attempt(DEFAULT_PASSWORD)).user.id).to.equal(ada.id);
    });

    it('refuses the pair with RateLimitedError after 5 failures, even with the right password', async () => {
      await failTimes(5);
      const error = await rejectionOf(attempt(DEFAULT_PASSWORD));
      expect(error).to.be.instanceOf(RateLimitedError);
      const limited = error as RateLimitedError;
      expect(limited.code).to.equal('RATE_LIMITED');
      expect(limited.retryAfterSeconds).to.be.greaterThan(0);
      expect(limited.retryAfterSeconds).to.be.at.most(WINDOW_MS / 1000);
      expect(world.tokens.issuedCount).to.equal(0);
    });

    it('counts unknown-e-mail failures too', async () => {
      await failTimes(5, IP, 'nobody@example.com');
      expect(await rejectionOf(attempt(DEFAULT_PASSWORD, IP, 'nobody@example.com'))).to.be.instanceOf(RateLimitedError);
    });

    it('tells how long is left in the window', async () => {
      await failTimes(5);
      world.clock.advance(10 * 60_000);
      const limited = (await rejectionOf(attempt(DEFAULT_PASSWORD))) as RateLimitedError;
      expect(limited).to.be.instanceOf(RateLimitedError);
      expect(limited.retryAfterSeconds).to.equal(5 * 60);
    });

    it('still lets the same account in from another IP', async () => {
      await failTimes(5);
      expect((await attempt(DEFAULT_PASSWORD, OTHER_IP)).user.id).to.equal(ada.id);
      expect(await rejectionOf(attempt(DEFAULT_PASSWORD))).to.be.instanceOf(RateLimitedError);
    });

    it('still lets another account in from the same IP', async () => {
      const bob = await world.given(aUser().withEmail('bob@example.com').withPassword('bobs password'));
      await failTimes(5);
      expect((await attempt('bobs password', IP, 'bob@example.com')).user.id).to.equal(bob.id);
    });

    it('resets the count after a success', async () => {
      await failTimes(4);
      await attempt(DEFAULT_PASSWORD);
      await failTimes(4);
      expect((await attempt(DEFAULT_PASSWORD)).user.id).to.equal(ada.id);
    });

    it('lets the pair in again once the window has passed', async () => {
      await failTimes(5);
      world.clock.advance(WINDOW_MS - 1000);
      expect(await rejectionOf(attempt(DEFAULT_PASSWORD))).to.be.instanceOf(RateLimitedError);
      world.clock.advance(1000);
      expect((await attempt(DEFAULT_PASSWORD)).user.id).to.equal(ada.id);
    });

    it('answers a wrong password with invalid credentials again once the window has passed', async () => {
      await failTimes(5);
      world.clock.advance(WINDOW_MS);
      expect(await rejectionOf(attempt('wrong password'))).to.include({
        code: 'UNAUTHORIZED',
        message: 'invalid credentials',
      });
    });
  });

  describe('sessions', () => {
    it('records the session with the client’s user agent and address', async () => {
      const { tokens } = signedIn(
        await login.execute({ email: EMAIL, password: DEFAULT_PASSWORD, clientIp: OTHER_IP, userAgent: 'Firefox/140' }),
      );
      const sessions = await world.sessionStore.listActive(ada.id, world.clock.now());
      expect(sessions).to.have.length(1);
      expect(sessions[0]).to.include({ id: sessionIdOf(world, tokens), userAgent: 'Firefox/140', ip: OTHER_IP });
    });

    it('starts no session on a failed login', async () => {
      await failTimes(1);
      expect(await world.sessionStore.listActive(ada.id, world.clock.now())).to.deep.equal([]);
    });
  });

  describe('with the verified-e-mail requirement (auth.require_verified_email)', () => {
    let strict: LoginUser;
    const strictAttempt = (password: string, email = EMAIL) =>
      strict.execute({ email, password, clientIp: IP, userAgent: 'test-agent/1.0' }).then(signedIn);

    beforeEach(() => {
      strict = new LoginUser({
        users: world.users,
        hasher: world.hasher,
        throttle: world.throttle,
        gate: world.gate,
        requirement: { links: world.links },
      });
    });

    it('answers a wrong password with 401 invalid credentials, and mails nothing', async () => {
      const error = await rejectionOf(strictAttempt('wrong password'));
      expect(error).to.be.instanceOf(UnauthorizedError);
      expect(error).to.include({ message: 'invalid credentials' });
      await world.runJobs();
      expect(world.mailer.sent).to.deep.equal([]);
    });

    it('answers an unknown e-mail with 401 invalid credentials, and mails nothing', async () => {
      expect(await rejectionOf(strictAttempt(DEFAULT_PASSWORD, 'nobody@example.com'))).to.be.instanceOf(
        UnauthorizedError,
      );
      await world.runJobs();
      expect(world.mailer.sent).to.deep.equal([]);
    });

    it('answers the right password of an unverified user with EmailNotVerifiedError, and mails a verification link', async () => {
      const error = await rejectionOf(strictAttempt(DEFAULT_PASSWORD));
      expect(error).to.be.instanceOf(EmailNotVerifiedError);
      expect(error).to.include({ code: 'EMAIL_NOT_VERIFIED', message: 'email not verified' });
      expect(world.tokens.issuedCount).to.equal(0);
      expect(await world.sessionStore.listActive(ada.id, world.clock.now())).to.deep.equal([]);
      await world.runJobs();
      expect(world.mailer.to(EMAIL, 'email-verification')).to.have.length(1);
    });

    it('mails at most 3 links an hour however often the unverified user tries', async () => {
      for (let i = 0; i < 5; i++)
        expect(await rejectionOf(strictAttempt(DEFAULT_PASSWORD))).to.be.instanceOf(EmailNotVerifiedError);
      await world.runJobs();
      expect(world.mailer.to(EMAIL, 'email-verification')).to.have.length(3);
      expect(world.jobFailures).to.deep.equal([]);
    });

    it('logs a verified user in', async () => {
      await world.users.update(ada.withVerifiedEmail(world.clock.now()));
      const { user, tokens } = await strictAttempt(DEFAULT_PASSWORD);
      expect(user.id).to.equal(ada.id);
      expect(await world.tokens.verifyAccessToken(tokens.accessToken)).to.include({ userId: ada.id });
      await world.runJobs();
      expect(world.mailer.sent).to.deep.equal([]);
    });

    it('logs the user in once the mailed link is followed', async () => {
      await rejectionOf(strictAttempt(DEFAULT_PASSWORD));
      await world.runJobs();
      await new ConfirmEmail(world.users, world.links, world.clock).execute({ token: world.mailer.last(EMAIL).token });
      expect((await strictAttempt(DEFAULT_PASSWORD)).user.id).to.equal(ada.id);
    });

    it('without the requirement, an unverified user logs in', async () => {
      expect(ada.emailVerified).to.equal(false);
      expect((await attempt(DEFAULT_PASSWORD)).user.id).to.equal(ada.id);
      await world.runJobs();
      expect(world.mailer.sent).to.deep.equal([]);
    });
  });
});
