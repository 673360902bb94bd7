import { expect } from 'chai';
import { ConfirmEmail } from '../../../src/application/account/ConfirmEmail.js';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import type { RefreshSession } from '../../../src/application/auth/RefreshSession.js';
import type { TokenPair } from '../../../src/application/auth/SessionIssuer.js';
import { UpdateProfile } from '../../../src/application/profile/UpdateProfile.js';
import {
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { EmailAlreadyRegisteredError } from '../../../src/domain/user/UserErrors.js';
import { aUser, DEFAULT_PASSWORD } from '../../support/mothers.js';
import { A_CLIENT, newWorld, rejectionOf, sessionIdOf, START, type World, refreshSessionIn } from '../world.js';

const IP = '203.0.113.7';

describe('UpdateProfile', () => {
  let world: World;
  let update: UpdateProfile;
  let ada: User;
  let sessionId: string;

  const stored = async (id = ada.id) => (await world.users.findById(id))!.toProps();
  /** Ada moves to countess@example.com, with the right current password. */
  const moveToCountess = () =>
    update.execute({
      userId: ada.id,
      sessionId,
      clientIp: IP,
      email: 'countess@example.com',
      currentPassword: DEFAULT_PASSWORD,
    });
  const expectCurrentPasswordError = async (promise: Promise<unknown>): Promise<void> => {
    const error = await rejectionOf(promise);
    expect(error).to.be.instanceOf(ValidationError);
    expect(error).to.include({ code: 'VALIDATION_ERROR', message: 'validation failed' });
    const fields = (error as ValidationError).fields;
    expect(fields.map((f) => f.field)).to.deep.equal(['current_password']);
    expect(fields[0]?.message).to.be.a('string').and.not.equal('');
  };

  beforeEach(async () => {
    world = newWorld();
    update = new UpdateProfile({
      users: world.users,
      hasher: world.hasher,
      clock: world.clock,
      ender: world.ender,
      links: world.links,
      throttle: world.throttle,
      transactions: world.jobs,
    });
    ada = await world.given(aUser().withEmail('ada@example.com').withName('Ada', 'Lovelace').withRole('moderator'));
    sessionId = sessionIdOf(world, await world.sessions.start(ada, A_CLIENT));
  });

  describe('partial changes', () => {
    it('changes only the first name when only it is given', async () => {
      const result = await update.execute({ userId: ada.id, sessionId, clientIp: IP, firstName: 'Augusta' });
      expect(result.toProps()).to.deep.include({
        firstName: 'Augusta',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        role: 'moderator',
      });
      expect(await stored()).to.deep.equal(result.toProps());
    });

    it('changes only the last name when only it is given', async () => {
      await update.execute({ userId: ada.id, sessionId, clientIp: IP, lastName: 'King' });
      expect(await stored()).to.deep.include({ firstName: 'Ada', lastName: 'King', email: 'ada@example.com' });
    });

    it('changes several fields at once', async () => {
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        firstName: 'Augusta',
        lastName: 'King',
        email: 'augusta@example.com',
        currentPassword: DEFAULT_PASSWORD,
      });
      expect(await stored()).to.deep.include({
        firstName: 'Augusta',
        lastName: 'King',
        email: 'augusta@example.com',
      });
    });

    it('changes no field when given nothing', async () => {
      world.clock.advance(1000);
      await update.execute({ userId: ada.id, sessionId, clientIp: IP });
      const { updatedAt: _after, ...after } = await stored();
      const { updatedAt: _before, ...before } = ada.toProps();
      expect(after).to.deep.equal(before);
    });

    it('moves updatedAt with the clock and keeps createdAt', async () => {
      world.clock.advance(90_000);
      const result = await update.execute({ userId: ada.id, sessionId, clientIp: IP, firstName: 'Augusta' });
      expect(result.updatedAt).to.deep.equal(new Date(START.getTime() + 90_000));
      expect(result.createdAt).to.deep.equal(START);
      expect((await stored()).updatedAt).to.deep.equal(new Date(START.getTime() + 90_000));
    });
  });

  describe('e-mail', () => {
    it('moves the user to a free e-mail', async () => {
      await moveToCountess();
      expect((await world.users.findByEmail('countess@example.com'))?.id).to.equal(ada.id);
      expect(await world.users.findByEmail('ada@example.com')).to.equal(undefined);
    });

    it('refuses an e-mail another user has with EmailAlreadyRegisteredError, changing nothing', async () => {
      await world.given(aUser().withEmail('bob@example.com'));
      const error = await rejectionOf(
        update.execute({
          userId: ada.id,
          sessionId,
          clientIp: IP,
          email: 'bob@example.com',
          currentPassword: DEFAULT_PASSWORD,
          firstName: 'Augusta',
        }),
      );
      expect(error).to.be.instanceOf(EmailAlreadyRegisteredError);
      expect(error).to.include({ code: 'CONFLICT', message: 'email already registered' });
      expect(await stored()).to.deep.equal(ada.toProps());
    });

    it('accepts the user’s own e-mail unchanged', async () => {
      const result = await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        email: 'ada@example.com',
        lastName: 'King',
      });
      expect(result.toProps()).to.deep.include({ email: 'ada@example.com', lastName: 'King' });
      expect(await stored()).to.deep.include({ email: 'ada@example.com', lastName: 'King' });
    });
  });

  describe('password', () => {
    it('stores the hash of the new password when the current password is right', async () => {
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        password: 'a brand new one',
        currentPassword: DEFAULT_PASSWORD,
      });
      const hash = (await stored()).passwordHash;
      expect(hash).to.equal('hashed:a brand new one');
      expect(await world.hasher.verify('a brand new one', hash)).to.equal(true);
      expect(await world.hasher.verify(DEFAULT_PASSWORD, hash)).to.equal(false);
    });

    it('lets the user log in with the new password and not the old one', async () => {
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        password: 'a brand new one',
        currentPassword: DEFAULT_PASSWORD,
      });
      const login = new LoginUser({
        users: world.users,
        hasher: world.hasher,
        throttle: world.throttle,
        gate: world.gate,
      });
      const attempt = (password: string) =>
        login.execute({ email: 'ada@example.com', password, clientIp: '203.0.113.7', userAgent: null });
      expect((await attempt('a brand new one')).user.id).to.equal(ada.id);
      expect(await rejectionOf(attempt(DEFAULT_PASSWORD))).to.be.instanceOf(UnauthorizedError);
    });

    it('refuses a new password without current_password (ValidationError on current_password), changing nothing', async () => {
      await expectCurrentPasswordError(
        update.execute({ userId: ada.id, sessionId, clientIp: IP, password: 'a brand new one', firstName: 'Augusta' }),
      );
      expect(await stored()).to.deep.equal(ada.toProps());
      expect(world.hasher.hashCalls).to.equal(0);
    });

    it('refuses a new password with a wrong current_password (ValidationError on current_password), changing nothing', async () => {
      await expectCurrentPasswordError(
        update.execute({
          userId: ada.id,
          sessionId,
          clientIp: IP,
          password: 'a brand new one',
          currentPassword: 'not my password',
          firstName: 'Augusta',
        }),
      );
      expect(await stored()).to.deep.equal(ada.toProps());
      expect(world.hasher.hashCalls).to.equal(0);
    });

    it('leaves the hash alone when no new password is given', async () => {
      await update.execute({ userId: ada.id, sessionId, clientIp: IP, firstName: 'Augusta' });
      expect((await stored()).passwordHash).to.equal(ada.passwordHash);
      expect(world.hasher.hashCalls).to.equal(0);
    });
  });

  describe('role', () => {
    it('has no role in its input type', () => {
      // @ts-expect-error -- UpdateProfileInput has no `role`: the profile can never change it
      const input: Parameters<UpdateProfile['execute']>[0] = { userId: 'x', sessionId: 'y', role: 'admin' };
      expect(input).to.be.an('object');
    });

    it('keeps the stored role through every kind of update', async () => {
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        firstName: 'Augusta',
        email: 'augusta@example.com',
        currentPassword: DEFAULT_PASSWORD,
      });
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        password: 'a brand new one',
        currentPassword: DEFAULT_PASSWORD,
      });
      expect((await stored()).role).to.equal('moderator');
    });

    it('keeps the stored role when the input smuggles one', async () => {
      const smuggled = { userId: ada.id, sessionId, clientIp: IP, lastName: 'King', role: 'admin' };
      await update.execute(smuggled);
      expect(await stored()).to.deep.include({ lastName: 'King', role: 'moderator' });
    });
  });

  it('answers NOT_FOUND for a user that no longer exists', async () => {
    await world.users.delete(ada.id);
    const error = await rejectionOf(update.execute({ userId: ada.id, sessionId, clientIp: IP, firstName: 'Augusta' }));
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${ada.id}` });
  });

  describe('taking over with a stolen access token (docs/accounts.md)', () => {
    it('refuses an e-mail change without the right current_password, changing nothing and mailing nothing', async () => {
      await expectCurrentPasswordError(
        update.execute({ userId: ada.id, sessionId, clientIp: IP, email: 'mallory@example.com' }),
      );
      await expectCurrentPasswordError(
        update.execute({
          userId: ada.id,
          sessionId,
          clientIp: IP,
          email: 'mallory@example.com',
          currentPassword: 'a guess',
        }),
      );
      expect(await stored()).to.deep.equal(ada.toProps());
      await world.runJobs();
      expect(world.mailer.sent).to.deep.equal([]);
    });

    it('tells the old address of an e-mail change, with no link and no token', async () => {
      await world.users.update(ada.withVerifiedEmail(world.clock.now()));
      await moveToCountess();
      await world.runJobs();
      expect(world.mailer.notices('ada@example.com')).to.deep.equal([
        { kind: 'email-changed', to: 'ada@example.com', firstName: 'Ada' },
      ]);
    });

    it('greets an unverified old address without a name', async () => {
      await moveToCountess();
      await world.runJobs();
      expect(world.mailer.notices('ada@example.com')).to.deep.equal([{ kind: 'email-changed', to: 'ada@example.com' }]);
    });

    it('spends every outstanding reset and verification link on a password change', async () => {
      expect(await world.links.send(ada, 'password-reset')).to.equal(true);
      expect(await world.links.send(ada, 'email-verification')).to.equal(true);
      await world.runJobs();
      const tokens = [
        world.mailer.last('ada@example.com', 'password-reset').token,
        world.mailer.last('ada@example.com', 'email-verification').token,
      ];
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        password: 'a brand new one',
        currentPassword: DEFAULT_PASSWORD,
      });
      for (const [token, kind] of [
        [tokens[0]!, 'password-reset'],
        [tokens[1]!, 'email-verification'],
      ] as const)
        expect(await rejectionOf(world.links.redeem(token, kind))).to.include({ code: 'INVALID_TOKEN' });
    });

    it('throttles current_password guesses like logins of that e-mail and IP: past the limit, RATE_LIMITED', async () => {
      const guess = (currentPassword: string) =>
        update.execute({ userId: ada.id, sessionId, clientIp: IP, password: 'a brand new one', currentPassword });
      for (let i = 0; i < world.throttle.maxFailures; i++) await expectCurrentPasswordError(guess(`guess ${i}`));
      const error = await rejectionOf(guess(DEFAULT_PASSWORD));
      expect(error).to.be.instanceOf(RateLimitedError);
      expect(error).to.include({ code: 'RATE_LIMITED' });
      expect(await world.hasher.verify(DEFAULT_PASSWORD, (await stored()).passwordHash)).to.equal(true);
      // The same budget as logins: a login of that e-mail from that IP is throttled too.
      const login = new LoginUser({
        users: world.users,
        hasher: world.hasher,
        throttle: world.throttle,
        gate: world.gate,
      });
      expect(
        await rejectionOf(
          login.execute({ email: 'ada@example.com', password: DEFAULT_PASSWORD, clientIp: IP, userAgent: null }),
        ),
      ).to.be.instanceOf(RateLimitedError);
      // Another IP is not.
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: '198.51.100.1',
        password: 'a brand new one',
        currentPassword: DEFAULT_PASSWORD,
      });
    });
  });

  describe('sessions and verification (docs/authentication.md)', () => {
    let authenticate: Authenticate;
    let refresh: RefreshSession;
    const accepted = async (pair: TokenPair): Promise<void> => {
      await authenticate.execute({ accessToken: pair.accessToken });
    };
    const refused = async (pair: TokenPair): Promise<void> => {
      expect(await rejectionOf(authenticate.execute({ accessToken: pair.accessToken }))).to.be.instanceOf(
        UnauthorizedError,
      );
      expect(await rejectionOf(refresh.execute({ refreshToken: pair.refreshToken }))).to.be.instanceOf(
        UnauthorizedError,
      );
    };

    beforeEach(() => {
      authenticate = new Authenticate(world.tokens, world.callers, world.clock);
      refresh = refreshSessionIn(world);
    });

    it('ends every other session on a password change, and keeps the current one', async () => {
      const current = await world.sessions.start(ada, A_CLIENT);
      const others = [await world.sessions.start(ada, A_CLIENT), await world.sessions.start(ada, A_CLIENT)];
      await update.execute({
        userId: ada.id,
        sessionId: sessionIdOf(world, current),
        clientIp: IP,
        password: 'a brand new one',
        currentPassword: DEFAULT_PASSWORD,
      });
      for (const other of others) await refused(other);
      await accepted(current);
      const next = await refresh.execute({ refreshToken: current.refreshToken });
      await accepted(next);
      const active = await world.sessionStore.listActive(ada.id, world.clock.now());
      expect(active.map((s) => s.id)).to.deep.equal([sessionIdOf(world, current)]);
    });

    it('ends no session when the password change is refused', async () => {
      const other = await world.sessions.start(ada, A_CLIENT);
      await rejectionOf(
        update.execute({
          userId: ada.id,
          sessionId,
          clientIp: IP,
          password: 'a brand new one',
          currentPassword: 'not my password',
        }),
      );
      await accepted(other);
    });

    it('ends no session on a change of names or e-mail', async () => {
      const other = await world.sessions.start(ada, A_CLIENT);
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        firstName: 'Augusta',
        email: 'augusta@example.com',
        currentPassword: DEFAULT_PASSWORD,
      });
      await accepted(other);
    });

    it('leaves other users’ sessions alone on a password change', async () => {
      const bob = await world.given(aUser().withEmail('bob@example.com'));
      const bobs = await world.sessions.start(bob, A_CLIENT);
      await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        password: 'a brand new one',
        currentPassword: DEFAULT_PASSWORD,
      });
      await accepted(bobs);
    });

    it('marks a new e-mail unverified and mails it a verification link', async () => {
      await world.users.update(ada.withVerifiedEmail(world.clock.now()));
      const result = await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        email: 'countess@example.com',
        currentPassword: DEFAULT_PASSWORD,
      });
      expect(result.emailVerified).to.equal(false);
      expect((await stored()).emailVerified).to.equal(false);
      await world.runJobs();
      expect(world.mailer.sent.map((m) => [m.kind, m.to])).to.deep.equal([
        ['email-changed', 'ada@example.com'],
        ['email-verification', 'countess@example.com'],
      ]);
      const confirmed = await new ConfirmEmail(world.users, world.links, world.clock).execute({
        token: world.mailer.last('countess@example.com', 'email-verification').token,
      });
      expect(confirmed.toProps()).to.include({
        email: 'countess@example.com',
        emailVerified: true,
      });
    });

    it('keeps a verified e-mail verified and mails nothing when the e-mail does not change', async () => {
      await world.users.update(ada.withVerifiedEmail(world.clock.now()));
      const result = await update.execute({
        userId: ada.id,
        sessionId,
        clientIp: IP,
        email: 'ada@example.com',
        firstName: 'Augusta',
      });
      expect(result.emailVerified).to.equal(true);
      await world.runJobs();
      expect(world.mailer.sent).to.deep.equal([]);
    });

    it('changes the e-mail even when the mail cannot be sent (the failure is reported)', async () => {
      world.mailer.failWith = new Error('smtp down');
      await moveToCountess();
      expect((await stored()).email).to.equal('countess@example.com');
      await world.runJobs();
      // The notice to the old address and the link to the new one both failed, and were reported.
      expect(world.jobFailures).to.have.length(2);
    });
  });
});
