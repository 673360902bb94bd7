import { expect } from 'chai';
import { RequestEmailVerification } from '../../../src/application/account/RequestEmailVerification.js';
import { NotFoundError } from '../../../src/domain/shared/DomainError.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, rejectionOf, type World } from '../world.js';

describe('RequestEmailVerification', () => {
  let world: World;
  let request: RequestEmailVerification;
  let ada: User;

  beforeEach(async () => {
    world = newWorld();
    request = new RequestEmailVerification(world.users, world.links);
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  it('mails a verification link valid 24 hours to the user’s address, after the answer', async () => {
    await request.execute({ userId: ada.id, clientIp: '203.0.113.7' });
    expect(world.mailer.sent).to.deep.equal([]);
    await world.runJobs();
    expect(world.mailer.sent).to.have.length(1);
    const mail = world.mailer.last('ada@example.com', 'email-verification');
    expect(mail).to.include({ kind: 'email-verification', to: 'ada@example.com' });
    expect(mail.expiresAt).to.deep.equal(new Date(world.clock.now().getTime() + 24 * 3_600_000));
    expect(await world.links.redeem(mail.token, 'email-verification')).to.include({
      userId: ada.id,
      email: 'ada@example.com',
    });
  });

  it('mails the current address after an e-mail change', async () => {
    await world.users.update(ada.with({ email: 'countess@example.com' }, world.clock.now()));
    await request.execute({ userId: ada.id, clientIp: '203.0.113.7' });
    await world.runJobs();
    expect(world.mailer.sent.map((m) => m.to)).to.deep.equal(['countess@example.com']);
  });

  it('mails nothing to a user whose e-mail is verified already, and answers the same', async () => {
    const grace = await world.given(aUser().withEmail('grace@example.com').verified());
    expect(await request.execute({ userId: grace.id, clientIp: '203.0.113.7' })).to.equal(undefined);
    await world.runJobs();
    expect(world.mailer.sent).to.deep.equal([]);
  });

  it('mails nothing for a 4th request within the hour, and answers the same', async () => {
    for (let i = 0; i < 4; i++)
      expect(await request.execute({ userId: ada.id, clientIp: '203.0.113.7' })).to.equal(undefined);
    await world.runJobs();
    expect(world.mailer.to('ada@example.com', 'email-verification')).to.have.length(3);
  });

  it('answers at once when the mail server is down: the mail goes out once it is back', async () => {
    world.mailer.failWith = new Error('connect ECONNREFUSED 127.0.0.1:25');
    expect(await request.execute({ userId: ada.id, clientIp: '203.0.113.7' })).to.equal(undefined);
    await world.runJobs();
    expect(world.jobFailures.map((f) => f.what)).to.deep.equal(['mail.send']);
    world.mailer.failWith = undefined;
    world.clock.advance(1000);
    await world.runJobs();
    expect(world.mailer.to('ada@example.com', 'email-verification')).to.have.length(1);
  });

  it('answers NOT_FOUND for a user that no longer exists', async () => {
    await world.users.delete(ada.id);
    expect(await rejectionOf(request.execute({ userId: ada.id, clientIp: '203.0.113.7' }))).to.be.instanceOf(
      NotFoundError,
    );
    expect(world.mailer.sent).to.deep.equal([]);
  });
});
