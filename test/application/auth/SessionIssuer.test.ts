import { expect } from 'chai';
import { USER_AGENT_MAX_LENGTH } from '../../../src/application/auth/SessionIssuer.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import { A_CLIENT, newWorld, START, type World } from '../world.js';

describe('SessionIssuer', () => {
  let world: World;
  let ada: User;

  const recordOf = async (refreshToken: string) => {
    const claims = await world.tokens.verifyRefreshToken(refreshToken);
    expect(claims, 'a valid refresh token').to.not.equal(undefined);
    return world.refreshTokens.find(claims!.tokenId);
  };
  const sessionsOf = (user: User) => world.sessionStore.listActive(user.id, world.clock.now());

  beforeEach(async () => {
    world = newWorld();
    ada = await world.given(aUser().withRole('admin'));
  });

  it('issues an access token carrying the user id, role and session id', async () => {
    const pair = await world.sessions.start(ada, A_CLIENT);
    const [session] = await sessionsOf(ada);
    expect(await world.tokens.verifyAccessToken(pair.accessToken)).to.deep.equal({
      userId: ada.id,
      role: 'admin',
      sessionId: session!.id,
      amr: ['pwd'],
    });
  });

  it('issues a refresh token that is not an access token, and the reverse', async () => {
    const pair = await world.sessions.start(ada, A_CLIENT);
    expect(await world.tokens.verifyAccessToken(pair.refreshToken)).to.equal(undefined);
    expect(await world.tokens.verifyRefreshToken(pair.accessToken)).to.equal(undefined);
  });

  it('remembers the refresh token with its user and expiry, in the family of the session', async () => {
    const pair = await world.sessions.start(ada, A_CLIENT);
    const record = await recordOf(pair.refreshToken);
    const [session] = await sessionsOf(ada);
    expect(record).to.include({ userId: ada.id, familyId: session!.id });
    expect(record?.expiresAt).to.deep.equal(
      new Date(world.clock.now().getTime() + world.tokens.refreshTokenTtlSeconds * 1000),
    );
    expect(record?.expiresAt).to.deep.equal(world.tokens.inspect(pair.refreshToken)?.expiresAt);
  });

  it('answers expires_in as the seconds until the access token expires', async () => {
    const pair = await world.sessions.start(ada, A_CLIENT);
    expect(pair.expiresIn).to.equal(world.tokens.accessTokenTtlSeconds);
  });

  it('records a started session with its client, its start as last use, and the refresh token’s expiry', async () => {
    const pair = await world.sessions.start(ada, { userAgent: 'Firefox/140', ip: '198.51.100.9' });
    expect(await sessionsOf(ada)).to.deep.equal([
      {
        id: world.tokens.inspect(pair.accessToken)!.sessionId,
        userId: ada.id,
        createdAt: START,
        lastUsedAt: START,
        expiresAt: world.tokens.inspect(pair.refreshToken)!.expiresAt,
        userAgent: 'Firefox/140',
        ip: '198.51.100.9',
      },
    ]);
  });

  it('keeps a missing user agent and address as null, and cuts a long user agent', async () => {
    await world.sessions.start(ada, { userAgent: null, ip: null });
    world.clock.advance(1000);
    await world.sessions.start(ada, { userAgent: 'x'.repeat(USER_AGENT_MAX_LENGTH + 100), ip: '203.0.113.7' });
    const [long, missing] = await sessionsOf(ada);
    expect(missing).to.include({ userAgent: null, ip: null });
    expect(long?.userAgent).to.equal('x'.repeat(USER_AGENT_MAX_LENGTH));
  });

  it('starts a new family and session each time; continue keeps the family and moves the session’s last use', async () => {
    const first = await world.sessions.start(ada, A_CLIENT);
    const second = await world.sessions.start(ada, A_CLIENT);
    const firstRecord = await recordOf(first.refreshToken);
    const secondRecord = await recordOf(second.refreshToken);
    expect(firstRecord?.familyId).to.not.equal(secondRecord?.familyId);
    expect(firstRecord?.id).to.not.equal(secondRecord?.id);
    expect(await sessionsOf(ada)).to.have.length(2);

    world.clock.advance(60_000);
    const continued = await world.sessions.continue(ada, firstRecord!.familyId, ['pwd']);
    const continuedRecord = await recordOf(continued.refreshToken);
    expect(continuedRecord?.familyId).to.equal(firstRecord?.familyId);
    expect(continuedRecord?.id).to.not.equal(firstRecord?.id);
    expect(world.tokens.inspect(continued.accessToken)?.sessionId).to.equal(firstRecord?.familyId);
    const sessions = await sessionsOf(ada);
    expect(sessions).to.have.length(2);
    const touched = sessions.find((s) => s.id === firstRecord!.familyId)!;
    expect(touched.createdAt).to.deep.equal(START);
    expect(touched.lastUsedAt).to.deep.equal(world.clock.now());
    expect(touched.expiresAt).to.deep.equal(world.tokens.inspect(continued.refreshToken)?.expiresAt);
  });
});
