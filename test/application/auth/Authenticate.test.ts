import { expect } from 'chai';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import type { TokenPair } from '../../../src/application/auth/SessionIssuer.js';
import { UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import { A_CLIENT, newWorld, rejectionOf, sessionIdOf, type World } from '../world.js';

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
    expect(await authenticate.execute({ accessToken: session.accessToken })).to.deep.equal({
      userId: ada.id,
      role: 'moderator',
      sessionId,
      amr: ['pwd'],
    });
  });

  it("answers the user's current role, not the one the token was issued with: a demotion takes effect at once", async () => {
    await world.users.update(ada.with({ role: 'user' }, world.clock.now()));
    expect(await authenticate.execute({ accessToken: session.accessToken })).to.deep.equal({
      userId: ada.id,
      role: 'user',
      sessionId,
      amr: ['pwd'],
    });
    await world.users.update(ada.with({ role: 'admin' }, world.clock.now()));
    expect((await authenticate.execute({ accessToken: session.accessToken })).role).to.equal('admin');
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

  describe('sessions (docs/authentication.md)', () => {
    it('refuses a token whose session has ended, at once', async () => {
      await world.ender.endOne(ada.id, sessionId);
      await expectInvalidToken(session.accessToken);
    });

    it('refuses a token whose session ended without its family being revoked (the session itself is checked)', async () => {
      await world.sessionStore.end(ada.id, sessionId, world.clock.now());
      await expectInvalidToken(session.accessToken);
    });

    it('keeps accepting the tokens of the user’s other sessions', async () => {
      const other = await world.sessions.start(ada, A_CLIENT);
      await world.ender.endOne(ada.id, sessionId);
      expect(await authenticate.execute({ accessToken: other.accessToken })).to.include({ userId: ada.id });
    });

    it('accepts a token issued in the same instant as a logout-all (no whole-second cut-off)', async () => {
      await world.ender.endAll(ada.id);
      await expectInvalidToken(session.accessToken);
      const fresh = await world.sessions.start(ada, A_CLIENT);
      expect(world.tokens.inspect(fresh.accessToken)?.issuedAt).to.deep.equal(
        world.tokens.inspect(session.accessToken)?.issuedAt,
      );
      expect(await authenticate.execute({ accessToken: fresh.accessToken })).to.include({ userId: ada.id });
    });

    it('refuses a token of a session that belongs to another user', async () => {
      const bob = await world.given(aUser());
      const bobs = await world.sessions.start(bob, A_CLIENT);
      const forged = await world.tokens.issueAccessToken({
        userId: ada.id,
        role: 'moderator',
        sessionId: sessionIdOf(world, bobs),
      });
      await expectInvalidToken(forged.token);
    });

    it('refuses a still-unexpired token once its session has expired', async () => {
      await world.sessionStore.touch(sessionId, world.clock.now(), new Date(world.clock.now().getTime() + 1000));
      world.clock.advance(999);
      await authenticate.execute({ accessToken: session.accessToken });
      world.clock.advance(1);
      expect(await world.tokens.verifyAccessToken(session.accessToken), 'the token itself is still valid').to.not.equal(
        undefined,
      );
      await expectInvalidToken(session.accessToken);
    });
  });
});
