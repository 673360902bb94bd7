import type { MfaChallenge, MfaChallengeStore } from '../../../application/ports/MfaChallengeStore.js';

/** Second-factor challenges in memory. */
export class InMemoryMfaChallengeStore implements MfaChallengeStore {
  private readonly rows = new Map<string, { challenge: MfaChallenge; spentAt: Date | null }>();

  async add(challenge: MfaChallenge): Promise<void> {
    await Promise.resolve();
    this.rows.set(challenge.selector, { challenge, spentAt: null });
  }

  async find(selector: string, now: Date): Promise<MfaChallenge | undefined> {
    await Promise.resolve();
    const row = this.rows.get(selector);
    return row && row.spentAt === null && row.challenge.expiresAt > now ? row.challenge : undefined;
  }

  async spend(selector: string, now: Date): Promise<boolean> {
    await Promise.resolve();
    const row = this.rows.get(selector);
    if (!row || row.spentAt !== null || row.challenge.expiresAt <= now) return false;
    row.spentAt = now;
    return true;
  }

  async purgeExpired(before: Date): Promise<number> {
    await Promise.resolve();
    let purged = 0;
    for (const [selector, row] of this.rows) {
      if (row.challenge.expiresAt < before) {
        this.rows.delete(selector);
        purged += 1;
      }
    }
    return purged;
  }
}
