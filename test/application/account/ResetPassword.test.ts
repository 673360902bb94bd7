import { expect } from 'chai';
import { ResetPassword } from '../../../src/application/account/ResetPassword.js';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import type { TokenPair } from '../../../src/application/auth/SessionIssuer.js';
import { UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { InvalidAccountTokenError } from '../../../src/domain/user/UserErrors.js';
import { aUser, DEFAULT_PASSWORD } from '../../support/mothers.js';
import { A_CLIENT, newWorld, rejectionOf, sessionIdOf, type World, refreshSessionIn, signedIn } from '../world.js';

const NEW_PASSWORD = 'a fresh new passphrase';

describe('ResetPassword', () => {
  let world: World;
  let reset: ResetPassword;
  let ada: User;

  const mailedReset = async (user = ada): Promise<string> => {
    expect(await world.links.send(user, 'password-reset')).to.equal(true);
    await world.runJobs();
    return world.mailer.last(user.email, 'password-reset').token;
  };
  const stored = async (id = ada.id) => (await world.users.findById(id))!;
  const expectInvalidToken = async (promise: Promise<unknown>): Promise<void> => {
    const error = await rejectionOf(promise);
    expect(error).to.be.instanceOf(InvalidAccountTokenError);
    expect(error).to.include({ code: 'INVALID_TOKEN', message: 'invalid or expired token' });
  };
  const login = (password: string) =>
    new LoginUser({
      users: world.users,
      hasher: world.hasher,
      throttle: world.throttle,
      gate: world.gate,
    }).execute({
      email: ada.email,
      password,
      clientIp: A_CLIENT.ip!,
      userAgent: A_CLIENT.userAgent,
    });

  beforeEach(async () => {
    world = newWorld();
    reset = new ResetPassword({
      users: world.users,
      hasher: world.hasher,
      links: world.links,
      ender: world.ender,
      clock: world.clock,
    });
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  it('sets the first password of an account without one (made by an identity provider): it logs in with it', async () => {
    const grace = await world.given(aUser().withEmail('grace@example.com').withoutPassword());
    await reset.execute({ token: await mailedReset(grace), password: NEW_PASSWORD });
    expect((await stored(grace.id)).hasPassword).to.equal(true);
    const { user } = await new LoginUser({
      users: world.users,
      hasher: world.hasher,
      throttle: world.throttle,
      gate: world.gate,
    }).execute({ email: grace.email, password: NEW_PASSWORD, clientIp: A_CLIENT.ip!, userAgent: null });
    expect(user.id).to.equal(grace.id);
  });

  it('sets the new password: it logs in, the old one does not', async () => {
    await reset.execute({ token: await mailedReset(), password: NEW_PASSWORD });
    const hash = (await stored()).passwordHash;
    expect(await world.hasher.verify(NEW_PASSWORD, hash)).to.equal(true);
    expect(await world.hasher.verify(DEFAULT_PASSWORD, hash)).to.equal(false);
    expect((await login(NEW_PASSWORD)).user.id).to.equal(ada.id);
    expect(await rejectionOf(login(DEFAULT_PASSWORD))).to.be.instanceOf(UnauthorizedError);
  });

  it('spends the token: using it again is INVALID_TOKEN and changes nothing', async () => {
    const token = await mailedReset();
    await reset.execute({ token, password: NEW_PASSWORD });
    await expectInvalidToken(reset.execute({ token, password: 'yet another password' }));
    expect(await world.hasher.verify(NEW_PASSWORD, (await stored()).passwordHash)).to.equal(true);
  });

  it('spends the user’s other reset links too', async () => {
    const first = await mailedReset();
    const second = await mailedReset();
    await reset.execute({ token: second, password: NEW_PASSWORD });
    await expectInvalidToken(reset.execute({ token: first, password: 'yet another password' }));
  });

  it('spends the user’s outstanding verification links too: no link mailed before the reset acts after it', async () => {
    expect(await world.links.send(ada, 'email-verification')).to.equal(true);
    await world.runJobs();
    const verification = world.mailer.last('ada@example.com', 'email-verification').token;
    await reset.execute({ token: await mailedReset(), password: NEW_PASSWORD });
    const error = await rejectionOf(world.links.redeem(verification, 'email-verification'));
    expect(error).to.include({ code: 'INVALID_TOKEN' });
  });

  it('leaves other users’ reset links working', async () => {
    const bob = await world.given(aUser().withEmail('bob@example.com'));
    const bobs = await mailedReset(bob);
    await reset.execute({ token: await mailedReset(), password: NEW_PASSWORD });
    await reset.execute({ token: bobs, password: 'bobs new password' });
    expect(await world.hasher.verify('bobs new password', (await stored(bob.id)).passwordHash)).to.equal(true);
  });

  it('ends every session of the user: access tokens refused, refresh tokens revoked', async () => {
    const phone = await world.sessions.start(ada, A_CLIENT);
    const laptop = await world.sessions.start(ada, { userAgent: 'laptop', ip: '198.51.100.9' });
    const authenticate = new Authenticate(world.tokens, world.callers, world.clock);
    const refresh = refreshSessionIn(world);

    await reset.execute({ token: await mailedReset(), password: NEW_PASSWORD });

    for (const pair of [phone, laptop]) {
      expect(await world.callers.find(ada.id, sessionIdOf(world, pair), world.clock.now())).to.equal(undefined);
      expect(await rejectionOf(authenticate.execute({ accessToken: pair.accessToken }))).to.be.instanceOf(
        UnauthorizedError,
      );
      expect(await rejectionOf(refresh.execute({ refreshToken: pair.refreshToken }))).to.be.instanceOf(
        UnauthorizedError,
      );
      const tokenId = (await world.tokens.verifyRefreshToken(pair.refreshToken))!.tokenId;
      expect((await world.refreshTokens.consume(tokenId, world.clock.now())).outcome).to.equal('revoked');
    }
    expect(await world.sessionStore.listActive(ada.id, world.clock.now())).to.deep.equal([]);
  });

  it('lets a login right after the reset work at once (same instant)', async () => {
    await world.sessions.start(ada, A_CLIENT);
    await reset.execute({ token: await mailedReset(), password: NEW_PASSWORD });
    const { tokens } = signedIn(await login(NEW_PASSWORD));
    const authenticate = new Authenticate(world.tokens, world.callers, world.clock);
    expect(await authenticate.execute({ accessToken: tokens.accessToken })).to.include({ userId: ada.id });
  });

  it('leaves other users’ sessions alone', async () => {
    const bob = await world.given(aUser().withEmail('bob@example.com'));
    const bobs: TokenPair = await world.sessions.start(bob, A_CLIENT);
    await reset.execute({ token: await mailedReset(), password: NEW_PASSWORD });
    expect(await world.callers.find(bob.id, sessionIdOf(world, bobs), world.clock.now())).to.not.equal(undefined);
  });

  it('marks the e-mail verified: following the link proved the address', async () => {
    expect((await stored()).emailVerified).to.equal(false);
    await reset.execute({ token: await mailedReset(), password: NEW_PASSWORD });
    expect((await stored()).emailVerified).to.equal(true);
  });

  it('refuses a verification token, changing nothing', async () => {
    await world.links.send(ada, 'email-verification');
    await world.runJobs();
    const token = world.mailer.last(ada.email, 'email-verification').token;
    const session = await world.sessions.start(ada, A_CLIENT);
    await expectInvalidToken(reset.execute({ token, password: NEW_PASSWORD }));
    expect((await stored()).toProps()).to.deep.equal(ada.toProps());
    expect(await world.callers.find(ada.id, sessionIdOf(world, session), world.clock.now())).to.not.equal(undefined);
  });

  it('refuses a token sent to an address the user no longer has, changing nothing', async () => {
    const token = await mailedReset();
    const moved = ada.with({ email: 'countess@example.com' }, world.clock.now());
    await world.users.update(moved);
    const session = await world.sessions.start(ada, A_CLIENT);
    await expectInvalidToken(reset.execute({ token, password: NEW_PASSWORD }));
    expect((await stored()).toProps()).to.deep.equal(moved.toProps());
    expect(await world.callers.find(ada.id, sessionIdOf(world, session), world.clock.now())).to.not.equal(undefined);
  });

  it('refuses the token of a deleted user', async () => {
    const token = await mailedReset();
    await world.users.delete(ada.id);
    await expectInvalidToken(reset.execute({ token, password: NEW_PASSWORD }));
  });

  it('refuses an expired token (an hour after it was sent), changing nothing', async () => {
    const token = await mailedReset();
    world.clock.advance(3_600_000);
    await expectInvalidToken(reset.execute({ token, password: NEW_PASSWORD }));
    expect((await stored()).passwordHash).to.equal(ada.passwordHash);
  });

  it('refuses a malformed token without hashing anything', async () => {
    await expectInvalidToken(reset.execute({ token: 'not-a-token', password: NEW_PASSWORD }));
    expect(world.hasher.hashCalls).to.equal(0);
  });
});
