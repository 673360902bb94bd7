import { expect } from 'chai';
import { InMemoryEmailTokenStore } from '../../../src/adapters/outbound/memory/InMemoryEmailTokenStore.js';
import { InMemoryRefreshTokenStore } from '../../../src/adapters/outbound/memory/InMemoryRefreshTokenStore.js';
import { InMemorySessionStore } from '../../../src/adapters/outbound/memory/InMemorySessionStore.js';
import { InMemoryMfaChallengeStore } from '../../../src/adapters/outbound/memory/InMemoryMfaChallengeStore.js';
import { InMemoryOidcHandoffStore } from '../../../src/adapters/outbound/memory/InMemoryOidcHandoffStore.js';
import { InMemoryPasskeyChallengeStore } from '../../../src/adapters/outbound/memory/InMemoryPasskeyChallengeStore.js';
import { PurgeExpiredTokens } from '../../../src/application/account/PurgeExpiredTokens.js';
import { FixedClock } from '../../support/FixedClock.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const HOUR = 60 * 60 * 1000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const USER = 'aaaaaaaa-0000-4000-8000-000000000001';

describe('PurgeExpiredTokens (tokens.purge)', () => {
  it('deletes sessions, refresh tokens, e-mailed tokens, mfa and passkey challenges, and sign-in states and codes that expired more than a day ago, and nothing newer', async () => {
    const sessions = new InMemorySessionStore();
    const refreshTokens = new InMemoryRefreshTokenStore();
    const emailTokens = new InMemoryEmailTokenStore();
    const challenges = new InMemoryMfaChallengeStore();
    const handoffs = new InMemoryOidcHandoffStore();
    const passkeyChallenges = new InMemoryPasskeyChallengeStore();
    const purge = new PurgeExpiredTokens(
      { refreshTokens, sessions, emailTokens, mfaChallenges: challenges, oidcHandoffs: handoffs, passkeyChallenges },
      new FixedClock(NOW),
    );
    for (const [id, expiresAt] of [
      ['old', ago(25 * HOUR)],
      ['recent', ago(23 * HOUR)],
    ] as const) {
      await sessions.start({
        id,
        userId: USER,
        createdAt: ago(200 * HOUR),
        lastUsedAt: ago(200 * HOUR),
        expiresAt,
        userAgent: null,
        ip: null,
      });
      await refreshTokens.add({ id: `${id}-token`, familyId: id, userId: USER, expiresAt });
      await emailTokens.addWithinLimit(
        {
          selector: `${id}-selector`,
          verifierHash: 'hash',
          userId: USER,
          purpose: 'password-reset',
          email: 'ada@example.com',
          createdAt: ago(30 * HOUR),
          expiresAt,
        },
        { since: ago(HOUR), perAddress: 10, perIp: 10 },
      );
      await challenges.add({
        selector: `${id}-challenge`,
        verifierHash: 'hash',
        userId: USER,
        methods: ['pwd'],
        createdAt: ago(30 * HOUR),
        expiresAt,
      });
      await handoffs.addState({
        selector: `${id}-state`,
        verifierHash: 'hash',
        provider: 'corp',
        redirectUri: 'https://app.example/cb',
        sealed: 'sealed',
        createdAt: ago(30 * HOUR),
        expiresAt,
      });
      await handoffs.addCode({
        selector: `${id}-code`,
        verifierHash: 'hash',
        userId: USER,
        createdAt: ago(30 * HOUR),
        expiresAt,
      });
      await passkeyChallenges.add({
        selector: `${id}-passkey`,
        verifierHash: 'hash',
        purpose: 'authentication',
        userId: null,
        createdAt: ago(30 * HOUR),
        expiresAt,
      });
    }

    expect(await purge.execute()).to.deep.equal({
      sessions: 1,
      refreshTokens: 1,
      emailTokens: 1,
      mfaChallenges: 1,
      oidcHandoffs: 2,
      passkeyChallenges: 1,
    });
    expect(await refreshTokens.find('old-token')).to.equal(undefined);
    expect(await refreshTokens.find('recent-token')).to.not.equal(undefined);
    expect(await emailTokens.find('old-selector')).to.equal(undefined);
    expect(await emailTokens.find('recent-selector')).to.not.equal(undefined);
    expect(await passkeyChallenges.find('recent-passkey', ago(24 * HOUR))).to.not.equal(undefined);
    // The recent session is still there: ending it still answers true (a purged one would not).
    expect(await sessions.end(USER, 'recent', ago(24 * HOUR))).to.equal(true);
    expect(await sessions.end(USER, 'old', ago(26 * HOUR))).to.equal(false);
    expect(await purge.execute()).to.deep.equal({
      sessions: 0,
      refreshTokens: 0,
      emailTokens: 0,
      mfaChallenges: 0,
      oidcHandoffs: 0,
      passkeyChallenges: 0,
    });
  });

  it('purges the stores one after another in the order given, each with the same bound a day before now', async () => {
    const calls: string[] = [];
    const store = (name: string, count: number) => ({
      purgeExpired: async (before: Date) => {
        calls.push(`${name} ${before.toISOString()}`);
        await Promise.resolve();
        return count;
      },
    });
    const purge = new PurgeExpiredTokens(
      { refreshTokens: store('r', 3), sessions: store('s', 2) },
      new FixedClock(NOW),
    );
    expect(await purge.execute()).to.deep.equal({ refreshTokens: 3, sessions: 2 });
    expect(calls).to.deep.equal(['r 2026-03-09T12:00:00.000Z', 's 2026-03-09T12:00:00.000Z']);
  });
});
