import { expect } from 'chai';
import { RandomOneTimeSecrets } from '../../../src/adapters/outbound/crypto/RandomOneTimeSecrets.js';
import { AccountLinks } from '../../../src/application/account/AccountLinks.js';
import { RequestPasswordReset } from '../../../src/application/account/RequestPasswordReset.js';
import type { AccountMail, Mailer } from '../../../src/application/ports/Mailer.js';
import type { User } from '../../../src/domain/user/User.js';
import type { UserRepository } from '../../../src/domain/user/UserRepository.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, type World } from '../world.js';

/** Wraps a repository to record every call made to it, by method name. */
function recordingCalls(users: UserRepository): { repo: UserRepository; calls: string[] } {
  const calls: string[] = [];
  const repo = new Proxy(users, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { repo, calls };
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
  let calls: string[];
  let request: RequestPasswordReset;
  let ada: User;

  beforeEach(async () => {
    world = newWorld();
    const recorded = recordingCalls(world.users);
    calls = recorded.calls;
    request = new RequestPasswordReset(recorded.repo, world.links);
    ada = await world.given(aUser().withEmail('ada@example.com'));
  });

  it('mails one reset link to a known e-mail, in the background', async () => {
    await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' });
    await world.background.idle();
    expect(world.mailer.sent).to.have.length(1);
    expect(world.mailer.sent[0]).to.include({ kind: 'password-reset', to: 'ada@example.com' });
    expect(world.backgroundFailures).to.deep.equal([]);
  });

  it('mails nothing for an unknown e-mail', async () => {
    await request.execute({ email: 'nobody@example.com', clientIp: '203.0.113.7' });
    await world.background.idle();
    expect(world.mailer.sent).to.deep.equal([]);
  });

  it('answers a known and an unknown e-mail alike, after the same work: one lookup by e-mail', async () => {
    const known = await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' });
    const knownCalls = calls.splice(0);
    const unknown = await request.execute({ email: 'nobody@example.com', clientIp: '203.0.113.7' });
    expect(known).to.equal(undefined);
    expect(unknown).to.equal(undefined);
    expect(knownCalls).to.deep.equal(['findByEmail']);
    expect(calls).to.deep.equal(['findByEmail']);
  });

  it('answers before the mail server does: the mail goes out after the answer', async () => {
    const held = new HeldMailer();
    const links = new AccountLinks(world.emailTokens, new RandomOneTimeSecrets(), held, world.clock, world.background);
    await new RequestPasswordReset(world.users, links).execute({ email: 'ada@example.com', clientIp: '203.0.113.7' });
    expect(held.delivered, 'nothing delivered when the answer is given').to.deep.equal([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(held.attempted).to.have.length(1);
    held.release();
    await world.background.idle();
    expect(held.delivered).to.have.length(1);
  });

  it('does no token work before answering: for a known e-mail, nothing is stored until after the answer', async () => {
    const touched: string[] = [];
    const tokens = new Proxy(world.emailTokens, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          touched.push(String(name));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const links = new AccountLinks(tokens, new RandomOneTimeSecrets(), world.mailer, world.clock, world.background);
    const answer = new RequestPasswordReset(world.users, links).execute({
      email: 'ada@example.com',
      clientIp: '203.0.113.7',
    });
    // What the caller does with the answer (write the 202) runs in the microtasks right after it.
    const seenAtAnswer = answer.then(() => [...touched]);
    expect(await seenAtAnswer).to.deep.equal([]);
    await world.background.idle();
    expect(touched).to.deep.equal(['addWithinLimit']);
    expect(world.mailer.sent).to.have.length(1);
  });

  it('sends nothing for a 4th request within the hour, and answers the same', async () => {
    for (let i = 0; i < 4; i++)
      expect(await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' })).to.equal(undefined);
    await world.background.idle();
    expect(world.mailer.to(ada.email, 'password-reset')).to.have.length(3);
    expect(world.backgroundFailures).to.deep.equal([]);
  });

  it('does not reject when the mailer fails: the failure is reported', async () => {
    world.mailer.failWith = new Error('smtp down');
    expect(await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' })).to.equal(undefined);
    await world.background.idle();
    expect(world.mailer.sent).to.deep.equal([]);
    expect(world.backgroundFailures).to.have.length(1);
    expect(world.backgroundFailures[0]?.error).to.have.property('message', 'smtp down');
  });

  it('sends a link that resets that user’s password (its token is redeemable for a reset)', async () => {
    await request.execute({ email: 'ada@example.com', clientIp: '203.0.113.7' });
    await world.background.idle();
    const record = await world.links.redeem(
      world.mailer.last('ada@example.com', 'password-reset').token,
      'password-reset',
    );
    expect(record).to.include({ userId: ada.id, email: 'ada@example.com' });
  });
});
