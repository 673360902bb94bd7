import { expect } from 'chai';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import type { RefreshSession } from '../../../src/application/auth/RefreshSession.js';
import type { TokenPair } from '../../../src/application/auth/SessionIssuer.js';
import { UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser, DEFAULT_PASSWORD } from '../../support/mothers.js';
import { newWorld, rejectionOf, sessionIdOf, START, type World, refreshSessionIn, signedIn } from '../world.js';

describe('RefreshSession', () => {
  let world: World;
  let refresh: RefreshSession;
  let ada: User;
  let session: TokenPair;

  const loginAda = async (): Promise<TokenPair> => {
    const login = new LoginUser({
      users: world.users,
      hasher: world.hasher,
      throttle: world.throttle,
      gate: world.gate,
    });
    return signedIn(
      await login.execute({ email: ada.email, password: DEFAULT_PASSWORD, clientIp: '203.0.113.7', userAgent: null }),
    ).tokens;
  };
  const use = (refreshToken: string) => refresh.execute({ refreshToken });
  const expectUnauthorized = async (promise: Promise<unknown>): Promise<void> => {
    const error = await rejectionOf(promise);
    expect(error).to.be.instanceOf(UnauthorizedError);
    expect(error).to.have.property('code', 'UNAUTHORIZED');
  };

  beforeEach(async () => {
    world = newWorld();
    refresh = refreshSessionIn(world);
    ada = await world.given(aUser().withEmail('ada@example.com'));
    session = await loginAda();
  });

  it('exchanges a refresh token for a new pair for the same user', async () => {
    const next = await use(session.refreshToken);
    expect(next.accessToken).to.not.equal(session.accessToken);
    expect(next.refreshToken).to.not.equal(session.refreshToken);
    expect(next.expiresIn).to.equal(world.tokens.accessTokenTtlSeconds);
    expect(await world.tokens.verifyAccessToken(next.accessToken)).to.deep.include({ userId: ada.id, role: 'user' });
    expect((await world.tokens.verifyRefreshToken(next.refreshToken))?.userId).to.equal(ada.id);
  });

  it('keeps the new refresh token in the same family', async () => {
    const next = await use(session.refreshToken);
    const familyOf = async (token: string) =>
      (await world.refreshTokens.find((await world.tokens.verifyRefreshToken(token))!.tokenId))!.familyId;
    expect(await familyOf(next.refreshToken)).to.equal(await familyOf(session.refreshToken));
  });

  it('lets each new refresh token be used in turn', async () => {
    let current = session;
    for (let i = 0; i < 3; i++) current = await use(current.refreshToken);
    expect(await world.tokens.verifyAccessToken(current.accessToken)).to.deep.include({ userId: ada.id, role: 'user' });
  });

  it('spends the refresh token: a second use fails with UnauthorizedError', async () => {
    await use(session.refreshToken);
    await expectUnauthorized(use(session.refreshToken));
  });

  it('revokes the whole family on reuse: the token issued by the first refresh stops working too', async () => {
    const next = await use(session.refreshToken);
    await expectUnauthorized(use(session.refreshToken));
    await expectUnauthorized(use(next.refreshToken));
  });

  it('ends the session on reuse: its access tokens are refused and it leaves the sessions list', async () => {
    const next = await use(session.refreshToken);
    const authenticate = new Authenticate(world.tokens, world.callers, world.clock);
    await authenticate.execute({ accessToken: next.accessToken });
    await expectUnauthorized(use(session.refreshToken));
    await expectUnauthorized(authenticate.execute({ accessToken: next.accessToken }));
    await expectUnauthorized(authenticate.execute({ accessToken: session.accessToken }));
    expect(await world.sessionStore.listActive(ada.id, world.clock.now())).to.deep.equal([]);
  });

  it('revokes descendants further down the family on reuse of an older token', async () => {
    const second = await use(session.refreshToken);
    const third = await use(second.refreshToken);
    await expectUnauthorized(use(second.refreshToken));
    await expectUnauthorized(use(third.refreshToken));
  });

  it('lets exactly one of two concurrent refreshes with one token succeed, and treats the other as reuse', async () => {
    const outcomes = await Promise.allSettled([use(session.refreshToken), use(session.refreshToken)]);
    const won = outcomes.filter((o): o is PromiseFulfilledResult<TokenPair> => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).to.have.length(1);
    expect(lost).to.have.length(1);
    expect(lost[0]!.reason).to.be.instanceOf(UnauthorizedError);
    await expectUnauthorized(use(won[0]!.value.refreshToken));
  });

  it('leaves the user’s other sessions working when one family is revoked', async () => {
    const otherSession = await loginAda();
    await use(session.refreshToken);
    await expectUnauthorized(use(session.refreshToken));
    const next = await use(otherSession.refreshToken);
    expect((await world.tokens.verifyRefreshToken(next.refreshToken))?.userId).to.equal(ada.id);
  });

  it('gives the access token the user’s current role, not the one at login', async () => {
    await world.users.update(ada.with({ role: 'moderator' }, world.clock.now()));
    const next = await use(session.refreshToken);
    expect(await world.tokens.verifyAccessToken(next.accessToken)).to.deep.include({
      userId: ada.id,
      role: 'moderator',
    });
    expect(await world.tokens.verifyAccessToken(session.accessToken), 'the old token keeps its role').to.deep.include({
      userId: ada.id,
      role: 'user',
    });
  });

  it('fails for a deleted user', async () => {
    await world.users.delete(ada.id);
    await expectUnauthorized(use(session.refreshToken));
    expect(world.tokens.issuedCount).to.equal(2); // only the login's pair
  });

  it('refuses an access token presented as a refresh token', async () => {
    await expectUnauthorized(use(session.accessToken));
    const next = await use(session.refreshToken); // and the real refresh token is untouched
    expect(next.refreshToken).to.be.a('string');
  });

  it('refuses a token it never issued', async () => {
    await expectUnauthorized(use('refresh.made-up'));
    await expectUnauthorized(use(''));
  });

  it('refuses an expired refresh token', async () => {
    world.clock.advance(world.tokens.refreshTokenTtlSeconds * 1000);
    await expectUnauthorized(use(session.refreshToken));
  });

  it('still accepts a refresh token just before it expires', async () => {
    world.clock.advance(world.tokens.refreshTokenTtlSeconds * 1000 - 1000);
    const next = await use(session.refreshToken);
    expect(next.expiresIn).to.equal(world.tokens.accessTokenTtlSeconds);
  });

  it('refuses a refresh token whose record is gone (tokens of the user deleted)', async () => {
    await world.refreshTokens.deleteForUser(ada.id);
    await expectUnauthorized(use(session.refreshToken));
  });

  describe('sessions (docs/authentication.md)', () => {
    const sessionOf = (pair: TokenPair) => sessionIdOf(world, pair);

    it('refuses the refresh token of an ended session', async () => {
      await world.ender.endOne(ada.id, sessionOf(session));
      await expectUnauthorized(use(session.refreshToken));
    });

    it('refuses the refresh token of an ended session even when its family was not revoked', async () => {
      await world.sessionStore.end(ada.id, sessionOf(session), world.clock.now());
      await expectUnauthorized(use(session.refreshToken));
      expect(world.tokens.issuedCount).to.equal(2); // only the login's pair
    });

    it('continues the same session: the new access token carries its id, and its last use moves', async () => {
      world.clock.advance(60_000);
      const next = await use(session.refreshToken);
      expect(sessionOf(next)).to.equal(sessionOf(session));
      const [record] = await world.sessionStore.listActive(ada.id, world.clock.now());
      expect(record).to.deep.include({ id: sessionOf(session), lastUsedAt: world.clock.now(), createdAt: START });
      expect(record?.expiresAt).to.deep.equal(world.tokens.inspect(next.refreshToken)?.expiresAt);
    });

    it('keeps the session alive past the first refresh token’s expiry as long as it is refreshed', async () => {
      world.clock.advance(world.tokens.refreshTokenTtlSeconds * 1000 - 1000);
      const next = await use(session.refreshToken);
      world.clock.advance(2000);
      const authenticate = new Authenticate(world.tokens, world.callers, world.clock);
      expect(await authenticate.execute({ accessToken: next.accessToken })).to.include({ userId: ada.id });
      await use(next.refreshToken);
    });
  });
});
