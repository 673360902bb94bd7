import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { testOneTimeSecrets } from '../../support/oneTimeSecrets.js';
import { MikroOrmEmailTokenStore } from '../../../src/adapters/outbound/mikroorm/MikroOrmEmailTokenStore.js';
import { MikroOrmRefreshTokenStore } from '../../../src/adapters/outbound/mikroorm/MikroOrmRefreshTokenStore.js';
import { MikroOrmSessionStore } from '../../../src/adapters/outbound/mikroorm/MikroOrmSessionStore.js';
import { MikroOrmUserRepository } from '../../../src/adapters/outbound/mikroorm/MikroOrmUserRepository.js';
import { SqlTransactions } from '../../../src/adapters/outbound/mikroorm/SqlTransactions.js';
import { AccountLinks } from '../../../src/application/account/AccountLinks.js';
import { SessionEnder } from '../../../src/application/account/SessionEnder.js';
import { RegisterUser } from '../../../src/application/auth/RegisterUser.js';
import type { SessionIssuer } from '../../../src/application/auth/SessionIssuer.js';
import type { JobQueue, NewJob } from '../../../src/application/ports/Jobs.js';
import { UpdateProfile } from '../../../src/application/profile/UpdateProfile.js';
import { CountingPasswordHasher } from '../../support/CountingPasswordHasher.js';
import { FakeLoginThrottle } from '../../support/FakeLoginThrottle.js';
import { FixedClock } from '../../support/FixedClock.js';
import { DEFAULT_PASSWORD } from '../../support/mothers.js';
import { SequentialIds } from '../../support/SequentialIds.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';

/** A queue that joins nothing and stores nothing: it records, or fails like a database would. */
class ScriptedQueue implements JobQueue {
  readonly enqueued: string[] = [];
  failing = false;
  async enqueue(job: NewJob): Promise<string | undefined> {
    if (this.failing) throw new Error('the jobs table is gone');
    this.enqueued.push(job.name);
    return `job-${this.enqueued.length}`;
  }
}

/**
 * docs/jobs.md: a job a use case enqueues is stored in the same transaction as the write it
 * follows. Registration (the user and its verification mail) and an e-mail change (the new address,
 * the notice and the link) on the SQL engines: when the job cannot be stored, the write is not
 * either — never a user who is never mailed, never an address changed without its mails.
 */
describe('writes and the jobs they owe commit together (SQL)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-tx-writes-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const target of sqlTargets(dir, 'tx.sqlite')) {
    describe(target.name, () => {
      const database = new SqlDatabaseFixture(target);
      let queue: ScriptedQueue;
      let users: MikroOrmUserRepository;
      let register: RegisterUser;
      let update: UpdateProfile;
      before(async function () {
        if (await database.open()) this.skip();
      });
      after(() => database.close());
      beforeEach(async () => {
        await database.clear();
        const db = database.db;
        const clock = new FixedClock(new Date());
        queue = new ScriptedQueue();
        users = new MikroOrmUserRepository(db);
        const transactions = new SqlTransactions(db);
        const links = new AccountLinks({
          tokens: new MikroOrmEmailTokenStore(db),
          secrets: testOneTimeSecrets(),
          jobs: queue,
          transactions,
          clock,
          mailsPerIpPerHour: 20,
        });
        const noSessions = {} as SessionIssuer; // registration without a session (require_verified_email)
        const hasher = new CountingPasswordHasher();
        register = new RegisterUser({
          users,
          hasher,
          ids: new SequentialIds(),
          clock,
          issuer: noSessions,
          links,
          transactions,
          sessionOnRegister: false,
        });
        const ender = new SessionEnder(new MikroOrmSessionStore(db), new MikroOrmRefreshTokenStore(db), clock);
        update = new UpdateProfile({
          users,
          hasher,
          clock,
          ender,
          links,
          throttle: new FakeLoginThrottle(clock),
          transactions,
        });
      });

      const registration = (email: string) => ({
        email,
        password: DEFAULT_PASSWORD,
        firstName: 'Ada',
        lastName: 'Lovelace',
        client: { ip: '192.0.2.1', userAgent: null },
      });

      it('stores the user with its verification job, and neither when the job cannot be stored', async () => {
        const { user } = await register.execute(registration('ada@example.com'));
        expect(queue.enqueued).to.deep.equal(['account.link']);
        expect((await users.findById(user.id))?.email).to.equal('ada@example.com');

        queue.failing = true;
        const failed = await register.execute(registration('grace@example.com')).then(
          () => undefined,
          (error: Error) => error,
        );
        expect(failed?.message).to.equal('the jobs table is gone');
        expect(await users.findByEmail('grace@example.com')).to.equal(undefined);
      });

      it('changes the address with its notice and link, and keeps the old one when they cannot be stored', async () => {
        const { user } = await register.execute(registration('ada@example.com'));
        const change = (email: string) =>
          update.execute({
            userId: user.id,
            sessionId: 'none',
            email,
            currentPassword: DEFAULT_PASSWORD,
            clientIp: '192.0.2.1',
          });
        queue.failing = true;
        await change('ada@lovelace.example').then(
          () => expect.fail('should reject'),
          (error: Error) => expect(error.message).to.equal('the jobs table is gone'),
        );
        expect((await users.findById(user.id))?.email).to.equal('ada@example.com');
        queue.failing = false;
        await change('ada@lovelace.example');
        expect((await users.findById(user.id))?.email).to.equal('ada@lovelace.example');
        expect(queue.enqueued).to.deep.equal(['account.link', 'mail.send', 'account.link']);
      });
    });
  }
});
