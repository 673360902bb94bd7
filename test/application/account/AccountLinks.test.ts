import { expect } from 'chai';
import { InMemoryEmailTokenStore } from '../../../src/adapters/outbound/memory/InMemoryEmailTokenStore.js';
import { KeyedOneTimeSecrets } from '../../../src/adapters/outbound/crypto/KeyedOneTimeSecrets.js';
import { testOneTimeSecrets } from '../../support/oneTimeSecrets.js';
import { AccountLinks, LINK_LIFETIME_MS, MAILS_PER_HOUR } from '../../../src/application/account/AccountLinks.js';
import { accountMailJobs } from '../../../src/application/account/AccountMailJobs.js';
import type { EmailTokenLimits, EmailTokenRecord } from '../../../src/application/ports/EmailTokenStore.js';
import type { JobPayload, JobQueue, Transaction } from '../../../src/application/ports/Jobs.js';
import type { AccountMailKind } from '../../../src/application/ports/Mailer.js';
import type { User } from '../../../src/domain/user/User.js';
import { InvalidAccountTokenError } from '../../../src/domain/user/UserErrors.js';
import { aUser } from '../../support/mothers.js';
import { newWorld, rejectionOf, START, type World } from '../world.js';

const HOUR_MS = 3_600_000;

/** The in-memory store, keeping a copy of every record it was given to store. */
class WatchedEmailTokenStore extends InMemoryEmailTokenStore {
  readonly stored: EmailTokenRecord[] = [];

  override async addWithinLimit(
    record: EmailTokenRecord,
    limits: EmailTokenLimits,
    within?: Transaction,
  ): Promise<boolean> {
    const added = await super.addWithinLimit(record, limits, within);
    if (added) this.stored.push({ ...record });
    return added;
  }
}

/** `token` with the first character of its verifier changed (still a well-formed token). */
const tampered = (token: string): string => {
  const [selector, verifier] = token.split('.') as [string, string];
  return `${selector}.${verifier[0] === 'A' ? 'B' : 'A'}${verifier.slice(1)}`;
};

describe('AccountLinks', () => {
  let world: World;
  let store: WatchedEmailTokenStore;
  let links: AccountLinks;
  let ada: User;

  /** Runs the due jobs (`mail.send`, `account.link`) as a runner would; answers each run's name and outcome. */
  const deliver = async () =>
    (await world.jobs.runDue(accountMailJobs(links, world.users, world.mailer))).map((run) => [run.name, run.outcome]);
  /** Sends a link of `kind` to ada and answers the token its mail carries. */
  const mailed = async (kind: AccountMailKind, user = ada): Promise<string> => {
    expect(await links.send(user, kind), 'the mail was queued').to.equal(true);
    expect(await deliver()).to.deep.equal([['mail.send', 'completed']]);
    return world.mailer.last(user.email, kind).token;
  };
  const expectInvalid = async (promise: Promise<unknown>): Promise<void> => {
    const error = await rejectionOf(promise);
    expect(error).to.be.instanceOf(InvalidAccountTokenError);
    expect(error).to.include({ code: 'INVALID_TOKEN', message: 'invalid or expired token' });
  };

  beforeEach(async () => {
    world = newWorld();
    store = new WatchedEmailTokenStore();
    links = new AccountLinks({
      tokens: store,
      secrets: testOneTimeSecrets(),
      jobs: world.jobs,
      transactions: world.jobs,
      clock: world.clock,
      mailsPerIpPerHour: 20,
    });
    ada = await world.given(aUser().withEmail('ada@example.com').withName('Ada', 'Lovelace'));
  });

  describe('send', () => {
    it('mails the user a link of the kind, to its current address, with its first name once the address is verified', async () => {
      ada = ada.withVerifiedEmail(world.clock.now());
      await world.users.update(ada);
      await mailed('password-reset');
      expect(world.mailer.sent).to.have.length(1);
      expect(world.mailer.sent[0]).to.include({ kind: 'password-reset', to: 'ada@example.com', firstName: 'Ada' });
    });

    it('greets an address nobody has proved without a name: no text the requester chose', async () => {
      const mallory = await world.given(
        aUser().withEmail('victim@example.com').withName('Ada, confirm at https://evil.example/x', 'Lovelace'),
      );
      await mailed('email-verification', mallory);
      await mailed('password-reset', mallory);
      for (const mail of world.mailer.to('victim@example.com')) expect(mail).not.to.have.property('firstName');
    });

    it('counts per address, whichever account holds it, and per requesting IP across addresses', async () => {
      for (let i = 0; i < MAILS_PER_HOUR; i++) await mailed('password-reset');
      // The address moves to another account: still no more reset mail to that inbox this hour.
      await world.users.delete(ada.id);
      const again = await world.given(aUser().withEmail('ada@example.com'));
      expect(await links.send(again, 'password-reset')).to.equal(false);
      // One IP asking for mails to many addresses stops at its own limit.
      const limited = new AccountLinks({
        tokens: store,
        secrets: testOneTimeSecrets(),
        jobs: world.jobs,
        transactions: world.jobs,
        clock: world.clock,
        mailsPerIpPerHour: 2,
      });
      const requester = { ip: '198.51.100.23' };
      const others = await Promise.all(
        ['x@example.com', 'y@example.com', 'z@example.com'].map((email) => world.given(aUser().withEmail(email))),
      );
      expect(await limited.send(others[0]!, 'password-reset', requester)).to.equal(true);
      expect(await limited.send(others[1]!, 'email-verification', requester)).to.equal(true);
      expect(await limited.send(others[2]!, 'password-reset', requester)).to.equal(false);
      expect(await limited.send(others[2]!, 'password-reset', { ip: '198.51.100.24' })).to.equal(true);
    });

    it('makes a reset link expire an hour after now, a verification link 24 hours after now', async () => {
      world.clock.advance(5000);
      await mailed('password-reset');
      await mailed('email-verification');
      const now = world.clock.now().getTime();
      expect(world.mailer.last(ada.email, 'password-reset').expiresAt).to.deep.equal(new Date(now + HOUR_MS));
      expect(world.mailer.last(ada.email, 'email-verification').expiresAt).to.deep.equal(new Date(now + 24 * HOUR_MS));
      expect(LINK_LIFETIME_MS).to.deep.equal({ 'password-reset': HOUR_MS, 'email-verification': 24 * HOUR_MS });
    });

    it('stores only a hash of the token: no stored record contains the token or its verifier', async () => {
      const token = await mailed('password-reset');
      const [selector, verifier] = token.split('.') as [string, string];
      expect(store.stored).to.have.length(1);
      const record = store.stored[0]!;
      expect(record).to.include({ selector, userId: ada.id, purpose: 'password-reset', email: 'ada@example.com' });
      expect(record.verifierHash).to.match(/^[0-9a-f]{64}$/);
      const text = JSON.stringify(record);
      expect(text).to.not.include(verifier);
      expect(text).to.not.include(token);
    });

    it("queues the mail with the token's selector, never the token: no job payload holds the token or its verifier", async () => {
      const queued: JobPayload[] = [];
      const recording: JobQueue = {
        enqueue: (job, within) => {
          queued.push(job.payload);
          return world.jobs.enqueue(job, within);
        },
      };
      links = new AccountLinks({
        tokens: store,
        secrets: testOneTimeSecrets(),
        jobs: recording,
        transactions: world.jobs,
        clock: world.clock,
        mailsPerIpPerHour: 20,
      });
      const token = await mailed('password-reset');
      const [selector, verifier] = token.split('.') as [string, string];
      expect(queued).to.have.length(1);
      expect(queued[0]).to.include({ kind: 'password-reset', to: 'ada@example.com', selector });
      const text = JSON.stringify(queued);
      expect(text).to.not.include(verifier);
      expect(text).to.not.include(token);
    });

    it('sends no mail whose link would not work (made under another key): the job fails instead', async () => {
      expect(await links.send(ada, 'password-reset')).to.equal(true);
      const otherKey = new AccountLinks({
        tokens: store,
        secrets: new KeyedOneTimeSecrets(Buffer.alloc(32, 7)),
        jobs: world.jobs,
        transactions: world.jobs,
        clock: world.clock,
        mailsPerIpPerHour: 20,
      });
      const runs = await world.jobs.runDue(accountMailJobs(otherKey, world.users, world.mailer));
      expect(runs.map((run) => [run.name, run.outcome])).to.deep.equal([['mail.send', 'retried']]);
      expect(String(runs[0]!.error)).to.match(/does not match its stored token/);
      expect(world.mailer.sent).to.have.length(0);
    });

    it('still sends a mail queued by an earlier version with the token in its payload', async () => {
      const { token, selector, verifierHash } = testOneTimeSecrets().create();
      const now = world.clock.now();
      const expiresAt = new Date(now.getTime() + HOUR_MS);
      const record = { selector, verifierHash, userId: ada.id, purpose: 'password-reset', email: ada.email } as const;
      await store.addWithinLimit({ ...record, createdAt: now, expiresAt }, { since: now, perAddress: 9, perIp: 9 });
      await world.jobs.enqueue({
        name: 'mail.send',
        payload: { kind: 'password-reset', to: ada.email, token, expiresAt: expiresAt.toISOString() },
      });
      expect(await deliver()).to.deep.equal([['mail.send', 'completed']]);
      expect(world.mailer.last(ada.email, 'password-reset').token).to.equal(token);
      expect(await links.redeem(token, 'password-reset')).to.include({ userId: ada.id });
    });

    it('makes a different token for every mail, of at least 128 random bits', async () => {
      const tokens = [
        await mailed('password-reset'),
        await mailed('password-reset'),
        await mailed('email-verification'),
      ];
      expect(new Set(tokens).size).to.equal(3);
      for (const token of tokens) expect(Buffer.from(token.split('.')[1]!, 'base64url').length).to.be.at.least(16);
    });

    it(`sends at most ${MAILS_PER_HOUR} mails of a kind to a user within an hour: the next is neither sent nor stored`, async () => {
      for (let i = 0; i < MAILS_PER_HOUR; i++) await mailed('password-reset');
      world.clock.advance(HOUR_MS - 1);
      expect(await links.send(ada, 'password-reset')).to.equal(false);
      expect(world.mailer.to(ada.email, 'password-reset')).to.have.length(MAILS_PER_HOUR);
      expect(store.stored).to.have.length(MAILS_PER_HOUR);
    });

    it('sends again once the hour since the earlier mails has passed', async () => {
      for (let i = 0; i < MAILS_PER_HOUR; i++) await mailed('password-reset');
      world.clock.advance(HOUR_MS);
      expect(await links.send(ada, 'password-reset'), 'exactly an hour later: still within the hour').to.equal(false);
      world.clock.advance(1);
      expect(await links.send(ada, 'password-reset')).to.equal(true);
      await deliver();
      expect(world.mailer.to(ada.email, 'password-reset')).to.have.length(MAILS_PER_HOUR + 1);
    });

    it('counts the limit per kind and per user', async () => {
      const bob = await world.given(aUser().withEmail('bob@example.com'));
      for (let i = 0; i < MAILS_PER_HOUR; i++) await mailed('password-reset');
      expect(await links.send(ada, 'email-verification')).to.equal(true);
      expect(await links.send(bob, 'password-reset')).to.equal(true);
    });

    it('queues the mail with its link: a mail server that is down fails only the mail job, retried later with the same link', async () => {
      world.mailer.failWith = new Error('smtp down');
      expect(await links.send(ada, 'password-reset')).to.equal(true);
      expect(await deliver()).to.deep.equal([['mail.send', 'retried']]);
      expect(world.mailer.sent).to.deep.equal([]);
      world.mailer.failWith = undefined;
      world.clock.advance(1000); // the first retry's delay
      expect(await deliver()).to.deep.equal([['mail.send', 'completed']]);
      expect(store.stored).to.have.length(1);
      const token = world.mailer.last(ada.email, 'password-reset').token;
      expect(await links.redeem(token, 'password-reset')).to.include({ userId: ada.id });
    });
  });

  describe('request', () => {
    it('stores one job naming the account, mailing nothing until it runs; running it mails the link', async () => {
      await links.request({ userId: ada.id }, 'email-verification', { ip: '203.0.113.7' });
      expect(world.mailer.sent).to.deep.equal([]);
      expect(store.stored).to.deep.equal([]);
      expect((await world.jobs.list({ page: 1, perPage: 10 })).items.map((j) => j.name)).to.deep.equal([
        'account.link',
      ]);
      expect(await deliver()).to.deep.equal([
        ['account.link', 'completed'],
        ['mail.send', 'completed'],
      ]);
      expect(world.mailer.to(ada.email, 'email-verification')).to.have.length(1);
      expect(store.stored[0]).to.include({ requestedIp: '203.0.113.7' });
    });

    it('asks by address: an address nobody holds mails nothing, once its job ran', async () => {
      await links.request({ email: 'nobody@example.com' }, 'password-reset');
      expect(await deliver()).to.deep.equal([['account.link', 'completed']]);
      expect(world.mailer.sent).to.deep.equal([]);
      expect(store.stored).to.deep.equal([]);
    });

    it('tells the address before a change with a notice (no link)', async () => {
      await links.notice(ada);
      expect(await deliver()).to.deep.equal([['mail.send', 'completed']]);
      expect(world.mailer.notices(ada.email)).to.have.length(1);
    });
  });

  describe('redeem', () => {
    it('accepts a mailed token once, answering what it was issued for', async () => {
      const token = await mailed('password-reset');
      const record = await links.redeem(token, 'password-reset');
      expect(record).to.include({ userId: ada.id, purpose: 'password-reset', email: 'ada@example.com' });
      expect(record.expiresAt).to.deep.equal(new Date(START.getTime() + HOUR_MS));
      await expectInvalid(links.redeem(token, 'password-reset'));
    });

    it('refuses a token of the other kind, without spending it', async () => {
      const reset = await mailed('password-reset');
      const verification = await mailed('email-verification');
      await expectInvalid(links.redeem(reset, 'email-verification'));
      await expectInvalid(links.redeem(verification, 'password-reset'));
      await links.redeem(reset, 'password-reset');
      await links.redeem(verification, 'email-verification');
    });

    it('refuses a reset token from its expiry on (an hour), and accepts it just before', async () => {
      const early = await mailed('password-reset');
      const late = await mailed('password-reset');
      world.clock.advance(HOUR_MS - 1);
      await links.redeem(early, 'password-reset');
      world.clock.advance(1);
      await expectInvalid(links.redeem(late, 'password-reset'));
    });

    it('refuses a verification token from its expiry on (24 hours), and accepts it just before', async () => {
      const early = await mailed('email-verification');
      const late = await mailed('email-verification');
      world.clock.advance(24 * HOUR_MS - 1);
      await links.redeem(early, 'email-verification');
      world.clock.advance(1);
      await expectInvalid(links.redeem(late, 'email-verification'));
    });

    it('refuses malformed and made-up tokens alike', async () => {
      const token = await mailed('password-reset');
      const [selector, verifier] = token.split('.') as [string, string];
      const garbage = [
        '',
        'garbage',
        '.',
        token + 'A',
        token.slice(1),
        `${selector}`,
        `${selector}.`,
        `.${verifier}`,
        `${verifier}.${selector}`,
      ];
      for (const bad of garbage) await expectInvalid(links.redeem(bad, 'password-reset'));
      await expectInvalid(links.redeem(`${'A'.repeat(22)}.${verifier}`, 'password-reset'));
      await links.redeem(token, 'password-reset');
    });

    it('refuses a token whose verifier was tampered with, and leaves the real one working', async () => {
      const token = await mailed('password-reset');
      await expectInvalid(links.redeem(tampered(token), 'password-reset'));
      await links.redeem(token, 'password-reset');
    });

    it('lets exactly one of 10 concurrent redemptions of one token succeed', async () => {
      const token = await mailed('password-reset');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, () => links.redeem(token, 'password-reset')),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).to.have.length(1);
      expect(lost).to.have.length(9);
      for (const { reason } of lost) expect(reason).to.be.instanceOf(InvalidAccountTokenError);
    });
  });

  describe('spendAll', () => {
    it('spends every outstanding link of the kind of the user, and nothing else', async () => {
      const bob = await world.given(aUser().withEmail('bob@example.com'));
      const first = await mailed('password-reset');
      const second = await mailed('password-reset');
      const verification = await mailed('email-verification');
      const bobs = await mailed('password-reset', bob);
      await links.spendAll(ada.id, 'password-reset');
      await expectInvalid(links.redeem(first, 'password-reset'));
      await expectInvalid(links.redeem(second, 'password-reset'));
      await links.redeem(verification, 'email-verification');
      await links.redeem(bobs, 'password-reset');
    });
  });
});
