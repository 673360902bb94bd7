import { expect } from 'chai';
import { ConfirmEmail } from '../../../src/application/account/ConfirmEmail.js';
import type { User } from '../../../src/domain/user/User.js';
import { InvalidAccountTokenError } from '../../../src/domain/user/UserErrors.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, rejectionOf, START, type World } from '../world.js';

describe('ConfirmEmail', () => {
  let world: World;
  let confirm: ConfirmEmail;
  let ada: User;

  const mailed = async (
    kind: 'email-verification' | 'password-reset' = 'email-verification',
    user = ada,
  ): Promise<string> => {
    expect(await world.links.send(user, kind)).to.equal(true);
    await world.runJobs();
    return world.mailer.last(user.email, kind).token;
  };
  const stored = async (id = ada.id) => (await world.users.findById(id))!;
  const expectInvalidToken = async (promise: Promise<unknown>): Promise<void> => {
    const error = await rejectionOf(promise);
    expect(error).to.be.instanceOf(InvalidAccountTokenError);
    expect(error).to.include({ code: 'INVALID_TOKEN', message: 'invalid or expired token' });
  };

  beforeEach(async () => {
    world = newWorld();
    confirm = new ConfirmEmail(world.users, world.links, world.clock);
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  it('marks the e-mail verified and answers the user', async () => {
    const token = await mailed();
    world.clock.advance(60_000);
    const user = await confirm.execute({ token });
    expect(user.id).to.equal(ada.id);
    expect(user.emailVerified).to.equal(true);
    expect((await stored()).toProps()).to.deep.equal(user.toProps());
    expect(user.updatedAt).to.deep.equal(new Date(START.getTime() + 60_000));
  });

  it('changes nothing else about the user', async () => {
    const user = await confirm.execute({ token: await mailed() });
    const { emailVerified: _v, updatedAt: _u, ...rest } = user.toProps();
    const { emailVerified: _v0, updatedAt: _u0, ...before } = ada.toProps();
    expect(rest).to.deep.equal(before);
  });

  it('refuses the token a second time', async () => {
    const token = await mailed();
    await confirm.execute({ token });
    await expectInvalidToken(confirm.execute({ token }));
  });

  it('spends the user’s other verification links with it', async () => {
    const first = await mailed();
    const second = await mailed();
    await confirm.execute({ token: first });
    await expectInvalidToken(confirm.execute({ token: second }));
  });

  it('refuses a token sent to the address the user had before a change, leaving the new one unverified', async () => {
    const token = await mailed();
    await world.users.update(ada.with({ email: 'countess@example.com' }, world.clock.now()));
    await expectInvalidToken(confirm.execute({ token }));
    expect((await stored()).toProps()).to.include({ email: 'countess@example.com', emailVerified: false });
  });

  it('accepts a link sent to the new address after a change', async () => {
    await mailed();
    const moved = ada.with({ email: 'countess@example.com' }, world.clock.now());
    await world.users.update(moved);
    const user = await confirm.execute({ token: await mailed('email-verification', moved) });
    expect(user.toProps()).to.include({ email: 'countess@example.com', emailVerified: true });
  });

  it('refuses a password-reset token, without spending it', async () => {
    const token = await mailed('password-reset');
    await expectInvalidToken(confirm.execute({ token }));
    expect((await stored()).emailVerified).to.equal(false);
    expect(await world.links.redeem(token, 'password-reset')).to.include({ userId: ada.id });
  });

  it('refuses an expired token (24 hours after it was sent)', async () => {
    const token = await mailed();
    world.clock.advance(24 * 3_600_000);
    await expectInvalidToken(confirm.execute({ token }));
    expect((await stored()).emailVerified).to.equal(false);
  });

  it('refuses a malformed token', async () => {
    await expectInvalidToken(confirm.execute({ token: 'not a token' }));
    await expectInvalidToken(confirm.execute({ token: '' }));
  });

  it('refuses the token of a deleted user', async () => {
    const token = await mailed();
    await world.users.delete(ada.id);
    await expectInvalidToken(confirm.execute({ token }));
  });

  it('answers an already verified user unchanged', async () => {
    const token = await mailed();
    const verified = ada.withVerifiedEmail(world.clock.now());
    await world.users.update(verified);
    world.clock.advance(1000);
    expect((await confirm.execute({ token })).toProps()).to.deep.equal(verified.toProps());
    expect((await stored()).toProps()).to.deep.equal(verified.toProps());
  });
});
