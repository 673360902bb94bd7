import { expect } from 'chai';
import type { CallerLookup } from '../../../../src/application/ports/CallerLookup.js';
import type { SessionRecord } from '../../../../src/application/ports/SessionStore.js';
import { User } from '../../../../src/domain/user/User.js';
import { describeContract, type ContractSubject } from './databases.js';

/** A lookup under test, over users and sessions it can be given. */
export interface CallerLookupUnderTest {
  readonly lookup: CallerLookup;
  addUser(user: User): Promise<void>;
  deleteUser(userId: string): Promise<void>;
  startSession(session: SessionRecord): Promise<void>;
  endSession(userId: string, sessionId: string, now: Date): Promise<void>;
}

const uuid = (prefix: string, n: number): string => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NOW = new Date('2026-01-01T00:00:00.000Z');
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000);

const ada = User.restore({
  id: uuid('aaaaaaaa', 1),
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'admin',
  passwordHash: '$2b$04$abcdefghijklmnopqrstuu5Yx0m0kS4jA1XvJt9qgM3b0yVh2b5yW',
  emailVerified: true,
  mfaEnabled: true,
  hasPasskey: true,
  createdAt: new Date('2025-12-01T10:11:12.345Z'),
  updatedAt: new Date('2025-12-02T10:11:12.678Z'),
});
const bob = User.restore({
  ...ada.toProps(),
  id: uuid('bbbbbbbb', 2),
  email: 'bob@example.com',
  role: 'user',
  emailVerified: false,
  mfaEnabled: false,
  hasPasskey: false,
});

const session = (n: number, userId: string, expiresAt: Date = at(3600)): SessionRecord => ({
  id: uuid('5e55105e', n),
  userId,
  createdAt: NOW,
  lastUsedAt: NOW,
  expiresAt,
  userAgent: null,
  ip: null,
});

/** The behaviour every CallerLookup promises, whichever storage is behind it. */
export function callerLookupContract(name: string, subject: ContractSubject<CallerLookupUnderTest>): void {
  describeContract(`CallerLookup contract: ${name}`, subject, (current) => {
    const find = (userId: string, n: number, now: Date = NOW) =>
      current().lookup.find(userId, uuid('5e55105e', n), now);

    beforeEach(async () => {
      await current().addUser(ada);
      await current().addUser(bob);
      await current().startSession(session(1, ada.id));
      await current().startSession(session(2, bob.id, at(60)));
    });

    it('answers the whole user, e-mail verification included, while the session is active', async () => {
      expect((await find(ada.id, 1))?.toProps()).to.deep.equal(ada.toProps());
      expect((await find(bob.id, 2))?.toProps()).to.deep.equal(bob.toProps());
    });

    it('answers undefined for a session of another user (a token cannot borrow one)', async () => {
      expect(await find(ada.id, 2)).to.equal(undefined);
      expect(await find(bob.id, 1)).to.equal(undefined);
    });

    it('answers undefined for an unknown session or user', async () => {
      expect(await find(ada.id, 9)).to.equal(undefined);
      expect(await find(uuid('cccccccc', 3), 1)).to.equal(undefined);
    });

    it('answers undefined once the session is ended', async () => {
      await current().endSession(ada.id, uuid('5e55105e', 1), NOW);
      expect(await find(ada.id, 1)).to.equal(undefined);
    });

    it('answers undefined from the instant the session expires', async () => {
      expect((await find(bob.id, 2, new Date(at(60).getTime() - 1)))?.id).to.equal(bob.id);
      expect(await find(bob.id, 2, at(60))).to.equal(undefined);
    });

    it('answers undefined once the user is deleted', async () => {
      await current().deleteUser(ada.id);
      expect(await find(ada.id, 1)).to.equal(undefined);
    });
  });
}
