import { expect } from 'chai';
import { ConfirmEmail } from '../../../src/application/account/ConfirmEmail.js';
import { RegisterUser } from '../../../src/application/auth/RegisterUser.js';
import { ConflictError } from '../../../src/domain/shared/DomainError.js';
import { EmailAlreadyRegisteredError } from '../../../src/domain/user/UserErrors.js';
import { aUser } from '../../support/mothers.js';
import { A_CLIENT, newWorld, rejectionOf, sessionIdOf, START, type World } from '../world.js';

describe('RegisterUser', () => {
  let world: World;
  let register: RegisterUser;
  const input = {
    email: 'grace@example.com',
    password: 's3cret-passw0rd',
    firstName: 'Grace',
    lastName: 'Hopper',
    client: A_CLIENT,
  };

  /** The use case on the world's adapters, starting a session on registration unless told not to. */
  const registerUser = (sessionOnRegister = true) =>
    new RegisterUser({
      users: world.users,
      hasher: world.hasher,
      ids: world.ids,
      clock: world.clock,
      issuer: world.sessions,
      links: world.links,
      transactions: world.jobs,
      sessionOnRegister,
    });

  beforeEach(() => {
    world = newWorld();
    register = registerUser();
  });

  it('stores the user with the given names and e-mail, created and updated now', async () => {
    const { user } = await register.execute(input);
    const stored = await world.users.findById(user.id);
    expect(stored?.toProps()).to.deep.include({
      id: user.id,
      email: 'grace@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
      createdAt: START,
      updatedAt: START,
    });
    expect(user.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('stores only the hash of the password, made with one hash call', async () => {
    const { user } = await register.execute(input);
    const stored = (await world.users.findById(user.id))!.toProps();
    expect(world.hasher.hashCalls).to.equal(1);
    expect(stored.passwordHash).to.equal('hashed:s3cret-passw0rd');
    expect(Object.values(stored)).to.not.include(input.password);
    expect(await world.hasher.verify(input.password, stored.passwordHash)).to.equal(true);
  });

  it('gives the role user', async () => {
    const { user } = await register.execute(input);
    expect(user.role).to.equal('user');
    expect((await world.users.findById(user.id))?.role).to.equal('user');
  });

  it('gives the role user even when the input smuggles another role', async () => {
    const smuggled = { ...input, role: 'admin' };
    const { user, tokens } = await register.execute(smuggled);
    expect((await world.users.findById(user.id))?.role).to.equal('user');
    expect(await world.tokens.verifyAccessToken(tokens!.accessToken)).to.deep.include({
      userId: user.id,
      role: 'user',
    });
  });

  it('starts a session: an access token for the new user and a remembered refresh token', async () => {
    const { user, tokens } = await register.execute(input);
    expect(tokens!.expiresIn).to.equal(world.tokens.accessTokenTtlSeconds);
    expect(await world.tokens.verifyAccessToken(tokens!.accessToken)).to.deep.include({
      userId: user.id,
      role: 'user',
    });
    const refresh = await world.tokens.verifyRefreshToken(tokens!.refreshToken);
    expect(refresh?.userId).to.equal(user.id);
    expect((await world.refreshTokens.find(refresh!.tokenId))?.userId).to.equal(user.id);
  });

  it('refuses a taken e-mail with EmailAlreadyRegisteredError (CONFLICT, "email already registered")', async () => {
    const owner = await world.given(aUser().withEmail('grace@example.com').withName('Other', 'Person'));
    const error = await rejectionOf(register.execute(input));
    expect(error).to.be.instanceOf(EmailAlreadyRegisteredError);
    expect(error).to.be.instanceOf(ConflictError);
    expect(error).to.include({ code: 'CONFLICT', message: 'email already registered' });
    const stillOwner = await world.users.findByEmail('grace@example.com');
    expect(stillOwner?.toProps()).to.deep.equal(owner.toProps());
    expect(world.tokens.issuedCount).to.equal(0);
  });

  it('lets exactly one of two concurrent registrations of one e-mail win', async () => {
    const outcomes = await Promise.allSettled([
      register.execute(input),
      register.execute({ ...input, firstName: 'Twin' }),
    ]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).to.have.length(1);
    expect(lost).to.have.length(1);
    expect(lost[0]!.reason).to.be.instanceOf(EmailAlreadyRegisteredError);
    const page = await world.users.list({ page: 1, perPage: 10, sort: 'email', order: 'asc' });
    expect(page.total).to.equal(1);
  });

  describe('account lifecycle (docs/authentication.md)', () => {
    it('mails one verification link to the new address, which verifies it', async () => {
      const { user } = await register.execute(input);
      expect(user.emailVerified).to.equal(false);
      await world.runJobs();
      expect(world.mailer.sent).to.have.length(1);
      const mail = world.mailer.last('grace@example.com', 'email-verification');
      // The address is not proved yet: the mail carries no text the requester chose, not even a name.
      expect(mail).not.to.have.property('firstName');
      const verified = await new ConfirmEmail(world.users, world.links, world.clock).execute({ token: mail.token });
      expect(verified).to.include({ id: user.id, emailVerified: true });
    });

    it('records the session with the client that registered', async () => {
      const { user, tokens } = await register.execute({
        ...input,
        client: { userAgent: 'Firefox/140', ip: '198.51.100.9' },
      });
      const sessions = await world.sessionStore.listActive(user.id, world.clock.now());
      expect(sessions).to.have.length(1);
      expect(sessions[0]).to.include({ id: sessionIdOf(world, tokens!), userAgent: 'Firefox/140', ip: '198.51.100.9' });
    });

    it('succeeds when the mail cannot be sent: the failure is reported', async () => {
      world.mailer.failWith = new Error('smtp down');
      const { user, tokens } = await register.execute(input);
      expect(tokens).to.not.equal(undefined);
      expect(await world.users.findById(user.id)).to.not.equal(undefined);
      await world.runJobs();
      expect(world.jobFailures).to.have.length(1);
    });

    it('sends no mail for a refused registration', async () => {
      await world.given(aUser().withEmail('grace@example.com'));
      await rejectionOf(register.execute(input));
      await world.runJobs();
      expect(world.mailer.sent).to.deep.equal([]);
    });

    it('without a session on registration: no tokens, no session, still the verification mail', async () => {
      const withoutSession = registerUser(false);
      const { user, tokens } = await withoutSession.execute(input);
      expect(tokens).to.equal(undefined);
      expect(world.tokens.issuedCount).to.equal(0);
      expect(await world.sessionStore.listActive(user.id, world.clock.now())).to.deep.equal([]);
      await world.runJobs();
      expect(world.mailer.to('grace@example.com', 'email-verification')).to.have.length(1);
    });
  });
});
