import type { PasskeyChallenge, PasskeyChallengeStore } from '../../../application/ports/PasskeyChallengeStore.js';

/** The challenges of passkey ceremonies in memory. */
export class InMemoryPasskeyChallengeStore implements PasskeyChallengeStore {
  private readonly rows = new Map<string, { challenge: PasskeyChallenge; spentAt: Date | null }>();

  async add(challenge: PasskeyChallenge): Promise<void> {
    await Promise.resolve();
    this.rows.set(challenge.selector, { challenge, spentAt: null });
  }

  async find(selector: string, now: Date): Promise<PasskeyChallenge | undefined> {
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
