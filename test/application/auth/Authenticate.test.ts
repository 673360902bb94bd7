import { expect } from 'chai';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import type { TokenPair } from '../../../src/application/auth/SessionIssuer.js';
import { UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import { A_CLIENT, newWorld, rejectionOf, type World } from '../world.js';

describe('Authenticate', () => {
  let world: World;
  let authenticate: Authenticate;
  let ada: User;
  let session: TokenPair;
  let sessionId: string;

  const expectInvalidToken = async (accessToken: string): Promise<void> => {
    const error = await rejectionOf(authenticate.execute({ accessToken }));
    expect(error).to.be.instanceOf(UnauthorizedError);
    expect(error).to.include({ code: 'UNAUTHORIZED', message: 'invalid token' });
  };

  beforeEach(async () => {
    world = newWorld();
    authenticate = new Authenticate(world.tokens, world.callers, world.clock);
    ada = await world.given(aUser().withRole('moderator'));
    session = await world.sessions.start(ada, A_CLIENT);
    sessionId = (await world.sessionStore.listActive(ada.id, world.clock.now()))[0]!.id;
  });

  it('answers the user id and role a valid access token carries', async () => {
    expect(await authenticate.execute({ accessToken: session.accessToken })).to.deep.equal({ userId: ada.id, role: 'moderator', sessionId });
  });

  it('keeps the role the token carries until the next login or refresh', async () => {
    await world.users.update(ada.with({ role: 'user' }, world.clock.now()));
    expect(await authenticate.execute({ accessToken: session.accessToken })).to.deep.equal({ userId: ada.id, role: 'moderator', sessionId });
  });

  it('fails for a deleted user’s still-valid token', async () => {
    expect(await world.tokens.verifyAccessToken(session.accessToken)).to.not.equal(undefined);
    await world.users.delete(ada.id);
    await expectInvalidToken(session.accessToken);
  });

  it('refuses a refresh token', async () => {
    await expectInvalidToken(session.refreshToken);
  });

  it('refuses an expired access token, and accepts it until then', async () => {
    world.clock.advance(world.tokens.accessTokenTtlSeconds * 1000 - 1);
    await authenticate.execute({ accessToken: session.accessToken });
    world.clock.advance(1);
    await expectInvalidToken(session.accessToken);
  });

  it('refuses a token it never issued', async () => {
    await expectInvalidToken('access.made-up');
    await expectInvalidToken('');
  });
});
