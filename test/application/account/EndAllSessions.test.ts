import { expect } from 'chai';
import { EndAllSessions } from '../../../src/application/account/EndAllSessions.js';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import { LoginUser } from '../../../src/application/auth/LoginUser.js';
import type { RefreshSession } from '../../../src/application/auth/RefreshSession.js';
import { NotFoundError, UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { UserNotFoundError } from '../../../src/domain/user/UserErrors.js';
import { aUser, DEFAULT_PASSWORD } from '../../support/mothers.js';
import { A_CLIENT, newWorld, rejectionOf, type World, refreshSessionIn, signedIn } from '../world.js';

describe('EndAllSessions', () => {
  let world: World;
  let endAll: EndAllSessions;
  let authenticate: Authenticate;
  let refresh: RefreshSession;
  let ada: User;

  beforeEach(async () => {
    world = newWorld();
    endAll = new EndAllSessions(world.users, world.ender);
    authenticate = new Authenticate(world.tokens, world.callers, world.clock);
    refresh = refreshSessionIn(world);
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  it('ends every session of the user, the current one included: access and refresh tokens refused', async () => {
    const pairs = [await world.sessions.start(ada, A_CLIENT), await world.sessions.start(ada, A_CLIENT)];
    const refreshed = await refresh.execute({ refreshToken: pairs[0]!.refreshToken });
    await endAll.execute({ userId: ada.id });
    for (const pair of [...pairs, refreshed]) {
      expect(await rejectionOf(authenticate.execute({ accessToken: pair.accessToken }))).to.be.instanceOf(
        UnauthorizedError,
      );
    }
    expect(await rejectionOf(refresh.execute({ refreshToken: refreshed.refreshToken }))).to.be.instanceOf(
      UnauthorizedError,
    );
    expect(await rejectionOf(refresh.execute({ refreshToken: pairs[1]!.refreshToken }))).to.be.instanceOf(
      UnauthorizedError,
    );
    expect(await world.sessionStore.listActive(ada.id, world.clock.now())).to.deep.equal([]);
  });

  it('lets a session started right after (same instant) work: no whole-second cut-off', async () => {
    await world.sessions.start(ada, A_CLIENT);
    await endAll.execute({ userId: ada.id });
    const login = new LoginUser({
      users: world.users,
      hasher: world.hasher,
      throttle: world.throttle,
      gate: world.gate,
    });
    const { tokens } = signedIn(
      await login.execute({ email: ada.email, password: DEFAULT_PASSWORD, clientIp: A_CLIENT.ip!, userAgent: null }),
    );
    expect(await authenticate.execute({ accessToken: tokens.accessToken })).to.include({ userId: ada.id });
    await refresh.execute({ refreshToken: tokens.refreshToken });
  });

  it('leaves other users’ sessions alone', async () => {
    const bob = await world.given(aUser().withEmail('bob@example.com'));
    const bobs = await world.sessions.start(bob, A_CLIENT);
    await world.sessions.start(ada, A_CLIENT);
    await endAll.execute({ userId: ada.id });
    expect(await authenticate.execute({ accessToken: bobs.accessToken })).to.include({ userId: bob.id });
  });

  it('succeeds for a user without sessions', async () => {
    await endAll.execute({ userId: ada.id });
  });

  it('answers UserNotFoundError for an unknown user', async () => {
    const id = 'c0ffee00-0000-4000-8000-000000000000';
    const error = await rejectionOf(endAll.execute({ userId: id }));
    expect(error).to.be.instanceOf(UserNotFoundError);
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${id}` });
  });
});
