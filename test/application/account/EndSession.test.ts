import { expect } from 'chai';
import { EndSession } from '../../../src/application/account/EndSession.js';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import type { RefreshSession } from '../../../src/application/auth/RefreshSession.js';
import type { TokenPair } from '../../../src/application/auth/SessionIssuer.js';
import { NotFoundError, UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { SessionNotFoundError } from '../../../src/domain/user/UserErrors.js';
import { aUser } from '../../support/mothers.js';
import { A_CLIENT, newWorld, rejectionOf, sessionIdOf, type World, refreshSessionIn } from '../world.js';

describe('EndSession', () => {
  let world: World;
  let end: EndSession;
  let authenticate: Authenticate;
  let refresh: RefreshSession;
  let ada: User;
  let phone: TokenPair;
  let laptop: TokenPair;

  const expectSessionNotFound = async (promise: Promise<unknown>, id: string): Promise<void> => {
    const error = await rejectionOf(promise);
    expect(error).to.be.instanceOf(SessionNotFoundError);
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', detail: `id: ${id}` });
  };
  const works = async (pair: TokenPair): Promise<void> => {
    await authenticate.execute({ accessToken: pair.accessToken });
  };
  const refused = async (pair: TokenPair): Promise<void> => {
    expect(await rejectionOf(authenticate.execute({ accessToken: pair.accessToken }))).to.be.instanceOf(
      UnauthorizedError,
    );
  };

  beforeEach(async () => {
    world = newWorld();
    end = new EndSession(world.ender);
    authenticate = new Authenticate(world.tokens, world.callers, world.clock);
    refresh = refreshSessionIn(world);
    ada = await world.given(aUser().withEmail('ada@example.com'));
    phone = await world.sessions.start(ada, A_CLIENT);
    laptop = await world.sessions.start(ada, A_CLIENT);
  });

  it('ends one of the caller’s sessions: its access token is refused at once, its refresh token too', async () => {
    await end.execute({ userId: ada.id, sessionId: sessionIdOf(world, phone) });
    await refused(phone);
    expect(await rejectionOf(refresh.execute({ refreshToken: phone.refreshToken }))).to.be.instanceOf(
      UnauthorizedError,
    );
  });

  it('leaves the caller’s other sessions working', async () => {
    await end.execute({ userId: ada.id, sessionId: sessionIdOf(world, phone) });
    await works(laptop);
    const next = await refresh.execute({ refreshToken: laptop.refreshToken });
    await works(next);
  });

  it('ends the current session as well (the one the request came with)', async () => {
    await end.execute({ userId: ada.id, sessionId: sessionIdOf(world, laptop) });
    await refused(laptop);
  });

  it('answers SessionNotFoundError for another user’s session, which keeps working', async () => {
    const bob = await world.given(aUser().withEmail('bob@example.com'));
    const bobs = await world.sessions.start(bob, A_CLIENT);
    await expectSessionNotFound(
      end.execute({ userId: ada.id, sessionId: sessionIdOf(world, bobs) }),
      sessionIdOf(world, bobs),
    );
    await works(bobs);
    await refresh.execute({ refreshToken: bobs.refreshToken });
  });

  it('answers SessionNotFoundError for an ended session and an unknown id', async () => {
    const id = sessionIdOf(world, phone);
    await end.execute({ userId: ada.id, sessionId: id });
    await expectSessionNotFound(end.execute({ userId: ada.id, sessionId: id }), id);
    await expectSessionNotFound(
      end.execute({ userId: ada.id, sessionId: 'c0ffee00-0000-4000-8000-000000000000' }),
      'c0ffee00-0000-4000-8000-000000000000',
    );
  });
});
