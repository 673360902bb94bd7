import { expect } from 'chai';
import { GetProfile } from '../../../src/application/profile/GetProfile.js';
import { NotFoundError } from '../../../src/domain/shared/DomainError.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, rejectionOf, type World } from '../world.js';

describe('GetProfile', () => {
  let world: World;
  let getProfile: GetProfile;

  beforeEach(() => {
    world = newWorld();
    getProfile = new GetProfile(world.users);
  });

  it('answers the caller’s own user record', async () => {
    const ada = await world.given(
      aUser().withEmail('ada@example.com').withName('Ada', 'Lovelace').withRole('moderator'),
    );
    await world.given(aUser().withEmail('bob@example.com'));
    const profile = await getProfile.execute({ userId: ada.id });
    expect(profile.toProps()).to.deep.equal(ada.toProps());
  });

  it('answers NOT_FOUND for a user that no longer exists', async () => {
    const ada = await world.given(aUser());
    await world.users.delete(ada.id);
    const error = await rejectionOf(getProfile.execute({ userId: ada.id }));
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', message: 'User not found', detail: `id: ${ada.id}` });
  });
});
