import { expect } from 'chai';
import type { CasbinAccessPolicy } from '../../../src/adapters/outbound/access/CasbinAccessPolicy.js';
import { AddPolicy } from '../../../src/application/admin/AddPolicy.js';
import { ChangeUserRole } from '../../../src/application/admin/ChangeUserRole.js';
import { Authenticate } from '../../../src/application/auth/Authenticate.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import {
  A_CLIENT,
  newAccessPolicy,
  newWorld,
  readPolicyFiles,
  rejectionOf,
  START,
  type PolicyFiles,
  type World,
  refreshSessionIn,
} from '../world.js';

describe('ChangeUserRole', () => {
  let files: PolicyFiles;
  let world: World;
  let policy: CasbinAccessPolicy;
  let changeRole: ChangeUserRole;
  let admin: User;
  let bob: User;

  before(async () => {
    files = await readPolicyFiles();
  });

  beforeEach(async () => {
    world = newWorld();
    ({ policy } = await newAccessPolicy(files));
    changeRole = new ChangeUserRole(world.users, policy, world.clock);
    admin = await world.given(aUser().withEmail('root@example.com').withRole('admin'));
    bob = await world.given(aUser().withEmail('bob@example.com'));
  });

  it('gives the user the new role, stored with updatedAt moved', async () => {
    world.clock.advance(60_000);
    const result = await changeRole.execute({ actorId: admin.id, userId: bob.id, role: 'moderator' });
    expect(result.role).to.equal('moderator');
    const stored = (await world.users.findById(bob.id))!;
    expect(stored.role).to.equal('moderator');
    expect(stored.updatedAt).to.deep.equal(new Date(START.getTime() + 60_000));
    expect(stored.createdAt).to.deep.equal(START);
    expect({ ...stored.toProps(), role: bob.role, updatedAt: bob.updatedAt }).to.deep.equal(bob.toProps());
  });

  it('accepts every role the default policy knows', async () => {
    for (const role of ['admin', 'moderator', 'user']) {
      expect((await changeRole.execute({ actorId: admin.id, userId: bob.id, role })).role).to.equal(role);
    }
  });

  it('accepts a role that exists only through a rule added at run time', async () => {
    await new AddPolicy(policy).execute({ role: 'auditor', path: '/api/v1/admin/users', action: 'GET' });
    expect((await changeRole.execute({ actorId: admin.id, userId: bob.id, role: 'auditor' })).role).to.equal('auditor');
  });

  it('refuses a role the policy does not know with a ValidationError on role, changing nothing', async () => {
    const error = await rejectionOf(changeRole.execute({ actorId: admin.id, userId: bob.id, role: 'superuser' }));
    expect(error).to.be.instanceOf(ValidationError);
    expect(error).to.include({ code: 'VALIDATION_ERROR', message: 'validation failed' });
    expect((error as ValidationError).fields.map((f) => f.field)).to.deep.equal(['role']);
    expect((await world.users.findById(bob.id))?.toProps()).to.deep.equal(bob.toProps());
  });

  it('refuses an admin changing their own role with a ConflictError, changing nothing', async () => {
    const error = await rejectionOf(changeRole.execute({ actorId: admin.id, userId: admin.id, role: 'user' }));
    expect(error).to.be.instanceOf(ConflictError);
    expect(error).to.have.property('code', 'CONFLICT');
    expect((await world.users.findById(admin.id))?.role).to.equal('admin');
  });

  it('refuses demoting the last admin with a ConflictError, changing nothing', async () => {
    // Two admins: root demotes eve; eve, whose token still says admin until it is refreshed, demotes root.
    const eve = await world.given(aUser().withEmail('eve@example.com').withRole('admin'));
    await changeRole.execute({ actorId: admin.id, userId: eve.id, role: 'moderator' });

    const error = await rejectionOf(changeRole.execute({ actorId: eve.id, userId: admin.id, role: 'user' }));

    expect(error).to.be.instanceOf(ConflictError);
    expect(error).to.include({ code: 'CONFLICT', message: 'the last admin cannot be demoted' });
    expect((await world.users.findById(admin.id))?.toProps()).to.deep.equal(admin.toProps());
  });

  it('lets exactly one of two admins demoting each other at the same time succeed', async () => {
    const eve = await world.given(aUser().withEmail('eve@example.com').withRole('admin'));

    const results = await Promise.allSettled([
      changeRole.execute({ actorId: admin.id, userId: eve.id, role: 'user' }),
      changeRole.execute({ actorId: eve.id, userId: admin.id, role: 'user' }),
    ]);

    expect(results.map((r) => r.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(refused.reason).to.be.instanceOf(ConflictError);
    const admins = (await world.users.list({ page: 1, perPage: 10, sort: 'email', order: 'asc' })).items.filter(
      (u) => u.role === 'admin',
    );
    expect(admins).to.have.length(1);
  });

  it('promotes and demotes other users freely while one admin remains', async () => {
    await changeRole.execute({ actorId: admin.id, userId: bob.id, role: 'admin' });
    expect((await changeRole.execute({ actorId: admin.id, userId: bob.id, role: 'user' })).role).to.equal('user');
    expect((await world.users.findById(admin.id))?.role).to.equal('admin');
  });

  it('answers NOT_FOUND with detail id: <id> for an unknown user', async () => {
    const id = 'c0ffee00-0000-4000-8000-000000000000';
    const error = await rejectionOf(changeRole.execute({ actorId: admin.id, userId: id, role: 'moderator' }));
    expect(error).to.be.instanceOf(NotFoundError);
    expect(error).to.include({ code: 'NOT_FOUND', message: 'User not found', detail: `id: ${id}` });
  });

  it('reaches the user’s access tokens at once, those issued before too, and the next refresh', async () => {
    const session = await world.sessions.start(bob, A_CLIENT);
    await changeRole.execute({ actorId: admin.id, userId: bob.id, role: 'moderator' });
    const authenticate = new Authenticate(world.tokens, world.callers, world.clock);
    expect(await authenticate.execute({ accessToken: session.accessToken })).to.deep.include({
      userId: bob.id,
      role: 'moderator',
    });
    const refresh = refreshSessionIn(world);
    const next = await refresh.execute({ refreshToken: session.refreshToken });
    expect(await authenticate.execute({ accessToken: next.accessToken })).to.deep.include({
      userId: bob.id,
      role: 'moderator',
    });
  });
});
