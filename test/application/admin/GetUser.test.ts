import { expect } from 'chai';
import { GetUser } from '../../../src/application/admin/GetUser.js';
import { NotFoundError } from '../../../src/domain/shared/DomainError.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, rejectionOf, type World } from '../world.js';

describe('GetUser', () => {
  let world: World;
  let getUser: GetUser;

  beforeEach(() => {
    world = newWorld();
    getUser = new GetUser(world.users);
  });

  it('answers the user with that id', async () => {
    await world.given(aUser().withEmail('ada@example.com'));
    const bob = await world.given(aUser().withEmail('bob@example.com').withRole('moderator'));
    expect((await getUser.execute({ userId: bob.id })).toProps()).to.deep.equal(bob.toProps());
  });

  it('answers NOT_FOUND "User not found" with detail id: <id> for an unknown id', async () => {
    const id = 'c0ffee00-0000-4000-8000-000000000000';
    const error = await rejectionOf(getUser.execute({ userId: id }));
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', message: 'User not found', detail: `id: ${id}` });
  });
});
