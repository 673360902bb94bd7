import { expect } from 'chai';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import { Logout } from '../../../src/application/auth/Logout.js';
import type { RefreshSession } from '../../../src/application/auth/RefreshSession.js';
import type { TokenPair } from '../../../src/application/auth/SessionIssuer.js';
import { UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser, DEFAULT_PASSWORD } from '../../support/mothers.js';
import { newWorld, rejectionOf, type World, refreshSessionIn, signedIn } from '../world.js';

describe('Logout', () => {
  let world: World;
  let logout: Logout;
  let refresh: RefreshSession;
  let ada: User;
  let bob: User;

  const loginAs = async (user: User): Promise<TokenPair> => {
    const login = new LoginUser({
      users: world.users,
      hasher: world.hasher,
      throttle: world.throttle,
      gate: world.gate,
    });
    return signedIn(
      await login.execute({ email: user.email, password: DEFAULT_PASSWORD, clientIp: '203.0.113.7', userAgent: null }),
    ).tokens;
  };
  const expectUnauthorized = async (promise: Promise<unknown>): Promise<void> => {
    const error = await rejectionOf(promise);
    expect(error).to.be.instanceOf(UnauthorizedError);
    expect(error).to.have.property('code', 'UNAUTHORIZED');
  };

  beforeEach(async () => {
    world = newWorld();
    logout = new Logout(world.tokens, world.refreshTokens, world.ender);
    refresh = refreshSessionIn(world);
    ada = await world.given(aUser().withEmail('ada@example.com'));
    bob = await world.given(aUser().withEmail('bob@example.com'));
  });

  it('stops the presented refresh token from working', async () => {
    const session = await loginAs(ada);
    await logout.execute({ userId: ada.id, refreshToken: session.refreshToken });
    await expectUnauthorized(refresh.execute({ refreshToken: session.refreshToken }));
  });

  it('revokes the whole family: logging out with an earlier token stops the latest one', async () => {
    const session = await loginAs(ada);
    const next = await refresh.execute({ refreshToken: session.refreshToken });
    await logout.execute({ userId: ada.id, refreshToken: session.refreshToken });
    await expectUnauthorized(refresh.execute({ refreshToken: next.refreshToken }));
  });

  it('revokes the family when logging out with the latest token', async () => {
    const session = await loginAs(ada);
    const next = await refresh.execute({ refreshToken: session.refreshToken });
    await logout.execute({ userId: ada.id, refreshToken: next.refreshToken });
    await expectUnauthorized(refresh.execute({ refreshToken: next.refreshToken }));
  });

  it('leaves the user’s other sessions working', async () => {
    const phone = await loginAs(ada);
    const laptop = await loginAs(ada);
    await logout.execute({ userId: ada.id, refreshToken: phone.refreshToken });
    const next = await refresh.execute({ refreshToken: laptop.refreshToken });
    expect((await world.tokens.verifyRefreshToken(next.refreshToken))?.userId).to.equal(ada.id);
  });

  it('refuses another user’s refresh token, and leaves that token working', async () => {
    const bobs = await loginAs(bob);
    await expectUnauthorized(logout.execute({ userId: ada.id, refreshToken: bobs.refreshToken }));
    const next = await refresh.execute({ refreshToken: bobs.refreshToken });
    expect((await world.tokens.verifyRefreshToken(next.refreshToken))?.userId).to.equal(bob.id);
  });

  it('refuses an access token in place of the refresh token', async () => {
    const session = await loginAs(ada);
    await expectUnauthorized(logout.execute({ userId: ada.id, refreshToken: session.accessToken }));
    await refresh.execute({ refreshToken: session.refreshToken });
  });

  it('refuses a token it never issued', async () => {
    await expectUnauthorized(logout.execute({ userId: ada.id, refreshToken: 'refresh.made-up' }));
  });

  it('refuses a refresh token whose records are gone', async () => {
    const session = await loginAs(ada);
    await world.refreshTokens.deleteForUser(ada.id);
    await expectUnauthorized(logout.execute({ userId: ada.id, refreshToken: session.refreshToken }));
  });

  describe('sessions (docs/authentication.md)', () => {
    it('ends the session: its access tokens are refused at once and it is no longer listed', async () => {
      const session = await loginAs(ada);
      const authenticate = new Authenticate(world.tokens, world.callers, world.clock);
      await authenticate.execute({ accessToken: session.accessToken });
      await logout.execute({ userId: ada.id, refreshToken: session.refreshToken });
      await expectUnauthorized(authenticate.execute({ accessToken: session.accessToken }));
      expect(await world.sessionStore.listActive(ada.id, world.clock.now())).to.deep.equal([]);
    });

    it('refuses the access tokens of every refresh of the session', async () => {
      const session = await loginAs(ada);
      const next = await refresh.execute({ refreshToken: session.refreshToken });
      await logout.execute({ userId: ada.id, refreshToken: session.refreshToken });
      const authenticate = new Authenticate(world.tokens, world.callers, world.clock);
      await expectUnauthorized(authenticate.execute({ accessToken: next.accessToken }));
    });

    it('stays idempotent: logging out twice with the same token succeeds', async () => {
      const session = await loginAs(ada);
      await logout.execute({ userId: ada.id, refreshToken: session.refreshToken });
      await logout.execute({ userId: ada.id, refreshToken: session.refreshToken });
    });
  });
});
