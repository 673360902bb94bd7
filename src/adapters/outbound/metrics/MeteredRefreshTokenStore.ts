import type {
  ConsumeOutcome,
  RefreshTokenRecord,
  RefreshTokenStore,
} from '../../../application/ports/RefreshTokenStore.js';
import type { Tally } from './Tally.js';

/**
 * A RefreshTokenStore that counts reuse detections: each `consume` answered `reused` (a spent
 * refresh token presented again, after which RefreshSession revokes its family).
 */
export class MeteredRefreshTokenStore implements RefreshTokenStore {
  constructor(
    private readonly inner: RefreshTokenStore,
    private readonly reuse: Tally,
  ) {}

  add(record: RefreshTokenRecord): Promise<void> {
    return this.inner.add(record);
  }

  async consume(tokenId: string, now: Date): Promise<{ outcome: ConsumeOutcome; record?: RefreshTokenRecord }> {
    const result = await this.inner.consume(tokenId, now);
    if (result.outcome === 'reused') this.reuse.inc();
    return result;
  }

  revokeFamily(familyId: string, now: Date): Promise<void> {
    return this.inner.revokeFamily(familyId, now);
  }

  find(tokenId: string): Promise<RefreshTokenRecord | undefined> {
    return this.inner.find(tokenId);
  }

  deleteForUser(userId: string): Promise<void> {
    return this.inner.deleteForUser(userId);
  }

  purgeExpired(before: Date): Promise<number> {
    return this.inner.purgeExpired(before);
  }
}
