import { expect } from 'chai';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, type World } from '../world.js';

describe('SessionIssuer', () => {
  let world: World;
  let ada: User;

  const recordOf = async (refreshToken: string) => {
    const claims = await world.tokens.verifyRefreshToken(refreshToken);
    expect(claims, 'a valid refresh token').to.not.equal(undefined);
    return world.refreshTokens.find(claims!.tokenId);
  };

  beforeEach(async () => {
    world = newWorld();
    ada = await world.given(aUser().withRole('admin'));
  });

  it('issues an access token carrying the user id and role', async () => {
    const pair = await world.sessions.issue(ada);
    expect(await world.tokens.verifyAccessToken(pair.accessToken)).to.deep.equal({ userId: ada.id, role: 'admin' });
  });

  it('issues a refresh token that is not an access token, and the reverse', async () => {
    const pair = await world.sessions.issue(ada);
    expect(await world.tokens.verifyAccessToken(pair.refreshToken)).to.equal(undefined);
    expect(await world.tokens.verifyRefreshToken(pair.accessToken)).to.equal(undefined);
  });

  it('remembers the refresh token with its user and expiry', async () => {
    const pair = await world.sessions.issue(ada);
    const record = await recordOf(pair.refreshToken);
    expect(record).to.include({ userId: ada.id });
    expect(record?.expiresAt).to.deep.equal(new Date(world.clock.now().getTime() + world.tokens.refreshTokenTtlSeconds * 1000));
    expect(record?.expiresAt).to.deep.equal(world.tokens.inspect(pair.refreshToken)?.expiresAt);
  });

  it('answers expires_in as the seconds until the access token expires', async () => {
    const pair = await world.sessions.issue(ada);
    expect(pair.expiresIn).to.equal(world.tokens.accessTokenTtlSeconds);
  });

  it('starts a new family for each session unless told to continue one', async () => {
    const first = await world.sessions.issue(ada);
    const second = await world.sessions.issue(ada);
    const firstRecord = await recordOf(first.refreshToken);
    const secondRecord = await recordOf(second.refreshToken);
    expect(firstRecord?.familyId).to.not.equal(secondRecord?.familyId);
    expect(firstRecord?.id).to.not.equal(secondRecord?.id);

    const continued = await world.sessions.issue(ada, firstRecord!.familyId);
    const continuedRecord = await recordOf(continued.refreshToken);
    expect(continuedRecord?.familyId).to.equal(firstRecord?.familyId);
    expect(continuedRecord?.id).to.not.equal(firstRecord?.id);
  });
});
