import { expect } from 'chai';
import { testOneTimeSecrets } from '../../support/oneTimeSecrets.js';
import { AccountLinks } from '../../../src/application/account/AccountLinks.js';
import { accountMailJobs } from '../../../src/application/account/AccountMailJobs.js';
import { RequestPasswordReset } from '../../../src/application/account/RequestPasswordReset.js';
import type { AccountMail, Mailer } from '../../../src/application/ports/Mailer.js';
import type { User } from '../../../src/domain/user/User.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, type World } from '../world.js';

/** `target`, recording the name of every method called on it into `calls`. */
function recordingCalls<T extends object>(target: T, calls: string[]): T {
  return new Proxy(target, {
    get(object, name, receiver) {
      const value: unknown = Reflect.get(object, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

/** A mailer that holds every mail until `release`: a mail server that has not answered yet. */
class HeldMailer implements Mailer {
  readonly attempted: AccountMail[] = [];
  readonly delivered: AccountMail[] = [];
  private readonly waiting: (() => void)[] = [];

  async send(mail: AccountMail): Promise<void> {
    this.attempted.push(mail);
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.delivered.push(mail);
  }

  release(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

describe('RequestPasswordReset', () => {
  let world: World;
  let request: RequestPasswordReset;
  let ada: User;

  beforeEach(async () => {
    world = newWorld();
    request = new RequestPasswordReset(world.links);
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  it('mails one reset link to a known e-mail, after the answer', async () => {
    await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' });
    expect(world.mailer.sent).to.deep.equal([]);
    await world.runJobs();
    expect(world.mailer.sent).to.have.length(1);
    expect(world.mailer.sent[0]).to.include({ kind: 'password-reset', to: 'ada@example.com' });
    expect(world.jobFailures).to.deep.equal([]);
  });

  it('mails nothing for an unknown e-mail', async () => {
    await request.execute({ email: 'nobody@example.com', clientIp: '203.0.113.7' });
    await world.runJobs();
    expect(world.mailer.sent).to.deep.equal([]);
  });

  it('answers a known and an unknown e-mail alike, after the same work: one job naming the address, nobody looked up', async () => {
    const lookups: string[] = [];
    const users = recordingCalls(world.users, lookups);
    const links = new AccountLinks({
      tokens: world.emailTokens,
      secrets: testOneTimeSecrets(),
      jobs: world.jobs,
      transactions: world.jobs,
      clock: world.clock,
      mailsPerIpPerHour: 20,
    });
    const reset = new RequestPasswordReset(links);
    expect(await reset.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' })).to.equal(undefined);
    expect(await reset.execute({ email: 'nobody@example.com', clientIp: '203.0.113.7' })).to.equal(undefined);
    expect(lookups).to.deep.equal([]);
    const jobs = (await world.jobs.list({ page: 1, perPage: 10 })).items;
    expect(jobs.map((j) => [j.name, j.state])).to.deep.equal([
      ['account.link', 'waiting'],
      ['account.link', 'waiting'],
    ]);
    await world.jobs.runDue(accountMailJobs(links, users, world.mailer));
    expect(lookups).to.deep.equal(['findByEmail', 'findByEmail']);
  });

  it('answers before the mail server does: the mail goes out after the answer', async () => {
    const held = new HeldMailer();
    await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' });
    expect(held.attempted, 'nothing sent when the answer is given').to.deep.equal([]);
    const running = world.jobs.runDue(accountMailJobs(world.links, world.users, held));
    await new Promise((resolve) => setImmediate(resolve));
    expect(held.attempted).to.have.length(1);
    expect(held.delivered).to.deep.equal([]);
    held.release();
    await running;
    expect(held.delivered).to.have.length(1);
  });

  it('does no token work before answering: for a known e-mail, nothing is stored until its job runs', async () => {
    const touched: string[] = [];
    const tokens = recordingCalls(world.emailTokens, touched);
    const links = new AccountLinks({
      tokens,
      secrets: testOneTimeSecrets(),
      jobs: world.jobs,
      transactions: world.jobs,
      clock: world.clock,
      mailsPerIpPerHour: 20,
    });
    await new RequestPasswordReset(links).execute({ email: 'ada@example.com', clientIp: '203.0.113.7' });
    expect(touched).to.deep.equal([]);
    await world.jobs.runDue(accountMailJobs(links, world.users, world.mailer));
    // account.link stores the token; mail.send reads it back to check the link it makes.
    expect(touched).to.deep.equal(['addWithinLimit', 'find']);
    expect(world.mailer.sent).to.have.length(1);
  });

  it('sends nothing for a 4th request within the hour, and answers the same', async () => {
    for (let i = 0; i < 4; i++)
      expect(await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' })).to.equal(undefined);
    await world.runJobs();
    expect(world.mailer.to(ada.email, 'password-reset')).to.have.length(3);
    expect(world.jobFailures).to.deep.equal([]);
  });

  it('does not reject when the mail server is down: the mail job fails and is retried until it is back', async () => {
    world.mailer.failWith = new Error('smtp down');
    expect(await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' })).to.equal(undefined);
    await world.runJobs();
    expect(world.mailer.sent).to.deep.equal([]);
    expect(world.jobFailures).to.have.length(1);
    expect(world.jobFailures[0]).to.include({ what: 'mail.send' });
    expect(world.jobFailures[0]?.error).to.have.property('message', 'smtp down');
    world.mailer.failWith = undefined;
    world.clock.advance(1000);
    await world.runJobs();
    expect(world.mailer.to(ada.email, 'password-reset')).to.have.length(1);
  });

  it('sends a link that resets that user’s password (its token is redeemable for a reset)', async () => {
    await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' });
    await world.runJobs();
    const record = await world.links.redeem(
      world.mailer.last('ada@example.com', 'password-reset').token,
      'password-reset',
    );
    expect(record).to.include({ userId: ada.id, email: 'ada@example.com' });
  });
});
