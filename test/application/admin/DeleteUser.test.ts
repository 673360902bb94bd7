import { expect } from 'chai';
import { DeleteUser } from '../../../src/application/admin/DeleteUser.js';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import type { RefreshSession } from '../../../src/application/auth/RefreshSession.js';
import type { TokenPair } from '../../../src/application/auth/SessionIssuer.js';
import { ConflictError, NotFoundError, UnauthorizedError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import { A_CLIENT, newWorld, rejectionOf, type World, refreshSessionIn } from '../world.js';

describe('DeleteUser', () => {
  let world: World;
  let deleteUser: DeleteUser;
  let refresh: RefreshSession;
  let admin: User;
  let bob: User;
  let bobsSession: TokenPair;

  beforeEach(async () => {
    world = newWorld();
    deleteUser = new DeleteUser(world.users, world.refreshTokens);
    refresh = refreshSessionIn(world);
    admin = await world.given(aUser().withEmail('root@example.com').withRole('admin'));
    bob = await world.given(aUser().withEmail('bob@example.com'));
    bobsSession = await world.sessions.start(bob, A_CLIENT);
  });

  it('deletes the user', async () => {
    await deleteUser.execute({ actorId: admin.id, userId: bob.id });
    expect(await world.users.findById(bob.id)).to.equal(undefined);
    expect(await world.users.findByEmail('bob@example.com')).to.equal(undefined);
  });

  it('deletes the user’s refresh tokens: refreshing with one fails', async () => {
    const bobsTokenId = (await world.tokens.verifyRefreshToken(bobsSession.refreshToken))!.tokenId;
    await deleteUser.execute({ actorId: admin.id, userId: bob.id });
    expect(await world.refreshTokens.find(bobsTokenId)).to.equal(undefined);
    const error = await rejectionOf(refresh.execute({ refreshToken: bobsSession.refreshToken }));
    expect(error).to.be.instanceOf(UnauthorizedError);
  });

  it('makes the user’s still-unexpired access token fail authentication', async () => {
    await deleteUser.execute({ actorId: admin.id, userId: bob.id });
    const error = await rejectionOf(
      new Authenticate(world.tokens, world.callers, world.clock).execute({ accessToken: bobsSession.accessToken }),
    );
    expect(error).to.be.instanceOf(UnauthorizedError);
  });

  it('leaves other users and their sessions alone', async () => {
    const adminSession = await world.sessions.start(admin, A_CLIENT);
    await deleteUser.execute({ actorId: admin.id, userId: bob.id });
    expect(await world.users.findById(admin.id)).to.not.equal(undefined);
    await refresh.execute({ refreshToken: adminSession.refreshToken });
  });

  it('refuses an admin deleting themselves with a ConflictError, keeping them and their tokens', async () => {
    const adminSession = await world.sessions.start(admin, A_CLIENT);
    const error = await rejectionOf(deleteUser.execute({ actorId: admin.id, userId: admin.id }));
    expect(error).to.be.instanceOf(ConflictError);
    expect(error).to.have.property('code', 'CONFLICT');
    expect(await world.users.findById(admin.id)).to.not.equal(undefined);
    await refresh.execute({ refreshToken: adminSession.refreshToken });
  });

  it('refuses deleting the last admin with a ConflictError, keeping them and their tokens', async () => {
    // Two admins: root deletes eve; eve, whose access token lives on in the test, tries to delete root.
    const eve = await world.given(aUser().withEmail('eve@example.com').withRole('admin'));
    await deleteUser.execute({ actorId: admin.id, userId: eve.id });
    const adminSession = await world.sessions.start(admin, A_CLIENT);

    const error = await rejectionOf(deleteUser.execute({ actorId: eve.id, userId: admin.id }));

    expect(error).to.be.instanceOf(ConflictError);
    expect(error).to.include({ code: 'CONFLICT', message: 'the last admin cannot be deleted' });
    expect((await world.users.findById(admin.id))?.toProps()).to.deep.equal(admin.toProps());
    await refresh.execute({ refreshToken: adminSession.refreshToken });
  });

  it('lets exactly one of two admins deleting each other at the same time succeed', async () => {
    const eve = await world.given(aUser().withEmail('eve@example.com').withRole('admin'));

    const results = await Promise.allSettled([
      deleteUser.execute({ actorId: admin.id, userId: eve.id }),
      deleteUser.execute({ actorId: eve.id, userId: admin.id }),
    ]);

    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(refused.reason).to.be.instanceOf(ConflictError);
    const remaining = [await world.users.findById(admin.id), await world.users.findById(eve.id)].filter(Boolean);
    expect(remaining).to.have.length(1);
  });

  it('answers NOT_FOUND with detail id: <id> for an unknown user', async () => {
    const id = 'c0ffee00-0000-4000-8000-000000000000';
    const error = await rejectionOf(deleteUser.execute({ actorId: admin.id, userId: id }));
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', message: 'User not found', detail: `id: ${id}` });
  });

  it('answers NOT_FOUND when the user is deleted a second time', async () => {
    await deleteUser.execute({ actorId: admin.id, userId: bob.id });
    expect(await rejectionOf(deleteUser.execute({ actorId: admin.id, userId: bob.id }))).to.be.instanceOf(
      NotFoundError,
    );
  });
});
