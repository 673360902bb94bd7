import { expect } from 'chai';
import type { SessionRecord, SessionStore } from '../../../../src/application/ports/SessionStore.js';
import { describeContract, type ContractSubject, type StoreClaims } from './databases.js';

/** A store under test, and how to make a user exist for it (SQL stores need the users row). */
export interface SessionStoreUnderTest {
  readonly store: SessionStore;
  registerUser(userId: string): Promise<void>;
  /** Deletes the user (SQL: the users row); absent where sessions do not follow their user by themselves. */
  deleteUser?(userId: string): Promise<void>;
  /** Simulates a process restart and answers a new store on the same data; absent where data cannot outlive the process. */
  restart?(): Promise<SessionStore>;
}

const uuid = (prefix: string, n: number): string => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const USER_A = uuid('aaaaaaaa', 1);
const USER_B = uuid('bbbbbbbb', 2);

const NOW = new Date('2026-01-01T00:00:00.000Z');
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);

const session = (n: number, userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord => ({
  id: uuid('5e55105e', n),
  userId,
  createdAt: at(n),
  lastUsedAt: at(n),
  expiresAt: new Date(at(3600).getTime() + 123),
  userAgent: `agent ${n}`,
  ip: `192.0.2.${n}`,
  ...overrides,
});

const ids = (records: readonly SessionRecord[]): string[] => records.map((r) => r.id);

/** The behaviour every SessionStore promises, whichever storage is behind it. */
export function sessionStoreContract(
  name: string,
  subject: ContractSubject<SessionStoreUnderTest>,
  options: StoreClaims,
): void {
  describeContract(`SessionStore contract: ${name}`, subject, (current) => {
    const store = (): SessionStore => current().store;

    beforeEach(async () => {
      await current().registerUser(USER_A);
      await current().registerUser(USER_B);
    });

    describe('start and listActive', () => {
      it('lists a started session with every field intact, timestamps to the millisecond', async () => {
        const full = session(1, USER_A, {
          createdAt: new Date('2026-01-01T00:00:01.234Z'),
          lastUsedAt: new Date('2026-01-01T00:00:05.678Z'),
        });
        const bare = session(2, USER_A, { userAgent: null, ip: null });
        await store().start(full);
        await store().start(bare);
        const listed = await store().listActive(USER_A, NOW);
        expect(listed).to.deep.equal([bare, full]);
        expect(listed[1]!.createdAt.getTime()).to.equal(full.createdAt.getTime());
        expect(listed[1]!.lastUsedAt.getTime()).to.equal(full.lastUsedAt.getTime());
        expect(listed[1]!.expiresAt.getTime()).to.equal(full.expiresAt.getTime());
      });

      it('keeps a 500-character user agent and an IPv6 address whole', async () => {
        const long = session(1, USER_A, { userAgent: 'M'.repeat(500), ip: '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff' });
        await store().start(long);
        expect(await store().listActive(USER_A, NOW)).to.deep.equal([long]);
      });

      it('lists newest first, sessions created at the same instant by id, descending', async () => {
        const same = at(10);
        // Started in an order that is neither the creation order nor the id order.
        const records = [
          session(3, USER_A, { createdAt: at(5) }),
          session(1, USER_A, { createdAt: same }),
          session(4, USER_A, { createdAt: at(20) }),
          session(2, USER_A, { createdAt: same }),
        ];
        for (const record of records) await store().start(record);
        expect(ids(await store().listActive(USER_A, NOW))).to.deep.equal([
          uuid('5e55105e', 4),
          uuid('5e55105e', 2),
          uuid('5e55105e', 1),
          uuid('5e55105e', 3),
        ]);
      });

      it("lists only the user's own sessions, and nothing for a user without any", async () => {
        await store().start(session(1, USER_A));
        await store().start(session(2, USER_B));
        expect(ids(await store().listActive(USER_A, NOW))).to.deep.equal([uuid('5e55105e', 1)]);
        expect(ids(await store().listActive(USER_B, NOW))).to.deep.equal([uuid('5e55105e', 2)]);
        expect(await store().listActive(uuid('cccccccc', 3), NOW)).to.deep.equal([]);
      });

      it('leaves out ended and expired sessions', async () => {
        await store().start(session(1, USER_A));
        await store().start(session(2, USER_A, { expiresAt: at(60) }));
        await store().start(session(3, USER_A));
        await store().end(USER_A, uuid('5e55105e', 3), NOW);
        expect(ids(await store().listActive(USER_A, at(59)))).to.deep.equal([uuid('5e55105e', 2), uuid('5e55105e', 1)]);
        expect(ids(await store().listActive(USER_A, at(60)))).to.deep.equal([uuid('5e55105e', 1)]);
      });
    });

    describe('isActive', () => {
      it('answers true for an active session of the user, until the instant it expires', async () => {
        await store().start(session(1, USER_A, { expiresAt: at(60) }));
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), NOW)).to.equal(true);
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), new Date(at(60).getTime() - 1))).to.equal(true);
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), at(60))).to.equal(false);
      });

      it("answers false for another user's session, an ended one, and an unknown one", async () => {
        await store().start(session(1, USER_A));
        await store().start(session(2, USER_A));
        await store().end(USER_A, uuid('5e55105e', 2), NOW);
        expect(await store().isActive(USER_B, uuid('5e55105e', 1), NOW)).to.equal(false);
        expect(await store().isActive(USER_A, uuid('5e55105e', 2), NOW)).to.equal(false);
        expect(await store().isActive(USER_A, uuid('deadbeef', 9), NOW)).to.equal(false);
      });
    });

    describe('end', () => {
      it('ends an active session once: true, then false', async () => {
        await store().start(session(1, USER_A));
        await store().start(session(2, USER_A));
        expect(await store().end(USER_A, uuid('5e55105e', 1), NOW)).to.equal(true);
        expect(await store().end(USER_A, uuid('5e55105e', 1), at(1))).to.equal(false);
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), NOW)).to.equal(false);
        expect(ids(await store().listActive(USER_A, NOW))).to.deep.equal([uuid('5e55105e', 2)]);
      });

      it("answers false for another user's session and leaves it active", async () => {
        await store().start(session(1, USER_A));
        expect(await store().end(USER_B, uuid('5e55105e', 1), NOW)).to.equal(false);
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), NOW)).to.equal(true);
      });

      it('answers false for an expired or unknown session', async () => {
        await store().start(session(1, USER_A, { expiresAt: at(60) }));
        expect(await store().end(USER_A, uuid('5e55105e', 1), at(60))).to.equal(false);
        expect(await store().end(USER_A, uuid('deadbeef', 9), NOW)).to.equal(false);
      });

      it('lets exactly one of 10 concurrent ends of one session win', async () => {
        await store().start(session(1, USER_A));
        const outcomes = await Promise.all(
          Array.from({ length: 10 }, () => store().end(USER_A, uuid('5e55105e', 1), NOW)),
        );
        expect(outcomes.filter(Boolean)).to.have.length(1);
      });
    });

    describe('endAll', () => {
      beforeEach(async () => {
        for (const n of [1, 2, 3]) await store().start(session(n, USER_A));
        await store().start(session(4, USER_A, { expiresAt: at(60) }));
        await store().start(session(5, USER_A));
        await store().end(USER_A, uuid('5e55105e', 5), NOW);
        await store().start(session(6, USER_B));
      });

      it('ends every active session of the user and answers exactly those ids (not the expired or ended ones)', async () => {
        const ended = await store().endAll(USER_A, at(60));
        expect([...ended].sort()).to.deep.equal([1, 2, 3].map((n) => uuid('5e55105e', n)));
        expect(await store().listActive(USER_A, at(60))).to.deep.equal([]);
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), NOW)).to.equal(false);
        expect(ids(await store().listActive(USER_B, NOW))).to.deep.equal([uuid('5e55105e', 6)]);
      });

      it('keeps the session it is told to keep', async () => {
        const ended = await store().endAll(USER_A, NOW, uuid('5e55105e', 2));
        expect([...ended].sort()).to.deep.equal([1, 3, 4].map((n) => uuid('5e55105e', n)));
        expect(ids(await store().listActive(USER_A, NOW))).to.deep.equal([uuid('5e55105e', 2)]);
      });

      it('answers nothing the second time, and nothing for a user without sessions', async () => {
        await store().endAll(USER_A, NOW);
        expect(await store().endAll(USER_A, at(1))).to.deep.equal([]);
        expect(await store().endAll(uuid('cccccccc', 3), NOW)).to.deep.equal([]);
      });

      it('answers each ended id to exactly one of concurrent callers', async () => {
        const answers = await Promise.all(Array.from({ length: 5 }, () => store().endAll(USER_A, NOW)));
        expect(answers.flat().sort()).to.deep.equal([1, 2, 3, 4].map((n) => uuid('5e55105e', n)));
      });
    });

    describe('touch', () => {
      it('moves lastUsedAt and expiresAt, so a refreshed session outlives its first expiry', async () => {
        await store().start(session(1, USER_A, { expiresAt: at(60) }));
        const expiresAt = new Date(at(7200).getTime() + 456);
        await store().touch(uuid('5e55105e', 1), at(30), expiresAt);
        const [listed] = await store().listActive(USER_A, at(61));
        expect(listed).to.deep.equal(session(1, USER_A, { lastUsedAt: at(30), expiresAt }));
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), at(61))).to.equal(true);
      });

      it('never revives an ended session', async () => {
        await store().start(session(1, USER_A));
        await store().end(USER_A, uuid('5e55105e', 1), NOW);
        await store().touch(uuid('5e55105e', 1), at(1), at(7200));
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), at(2))).to.equal(false);
        expect(await store().listActive(USER_A, at(2))).to.deep.equal([]);
        expect(await store().end(USER_A, uuid('5e55105e', 1), at(2))).to.equal(false);
      });

      it('does nothing for an unknown session', async () => {
        await store().touch(uuid('deadbeef', 9), NOW, at(60));
        expect(await store().isActive(USER_A, uuid('deadbeef', 9), NOW)).to.equal(false);
      });
    });

    describe('purgeExpired', () => {
      it('deletes the sessions that expired before the time, ended or not, and answers how many', async () => {
        const expired = session(1, USER_A, { expiresAt: at(-60) });
        const endedExpired = session(2, USER_B, { expiresAt: at(-1) });
        const live = session(3, USER_A, { expiresAt: at(0) });
        const ended = session(4, USER_A);
        for (const record of [expired, endedExpired, live, ended]) await store().start(record);
        await store().end(USER_B, endedExpired.id, at(-30));
        await store().end(USER_A, ended.id, NOW);
        expect(await store().purgeExpired(NOW)).to.equal(2);
        // The live one is still there to be listed; the ended one still there to stay ended.
        expect(ids(await store().listActive(USER_A, at(-120)))).to.deep.equal([live.id]);
        await store().touch(ended.id, NOW, at(7200));
        expect(await store().isActive(USER_A, ended.id, NOW)).to.equal(false);
        expect(await store().purgeExpired(NOW)).to.equal(0);
      });
    });

    if (options.followsUser) {
      it("forgets a deleted user's sessions, and no one else's", async () => {
        const { deleteUser } = current();
        if (!deleteUser) throw new Error(`${name} claims its records follow their user but cannot delete one`);
        await store().start(session(1, USER_A));
        await store().start(session(2, USER_B));
        await deleteUser(USER_A);
        expect(await store().listActive(USER_A, NOW)).to.deep.equal([]);
        expect(await store().isActive(USER_A, uuid('5e55105e', 1), NOW)).to.equal(false);
        expect(await store().end(USER_A, uuid('5e55105e', 1), NOW)).to.equal(false);
        expect(ids(await store().listActive(USER_B, NOW))).to.deep.equal([uuid('5e55105e', 2)]);
      });
    }

    if (!options.survivesRestart) return;

    describe('restart', () => {
      it('remembers active and ended sessions across a restart', async () => {
        const { restart } = current();
        if (!restart) throw new Error(`${name} claims to survive a restart but cannot restart`);
        await store().start(session(1, USER_A));
        await store().start(session(2, USER_A));
        await store().end(USER_A, uuid('5e55105e', 2), NOW);
        const reopened = await restart();
        expect(await reopened.listActive(USER_A, NOW)).to.deep.equal([session(1, USER_A)]);
        expect(await reopened.isActive(USER_A, uuid('5e55105e', 2), NOW)).to.equal(false);
      });
    });
  });
}
