import type {
  ConsumeOutcome,
  RefreshTokenRecord,
  RefreshTokenStore,
} from '../../../application/ports/RefreshTokenStore.js';
import { deleteWhere } from './InMemorySessionStore.js';

interface Row extends RefreshTokenRecord {
  consumedAt?: Date;
}

/** Refresh-token families in memory. Single-threaded, so `consume` is atomic by construction. */
export class InMemoryRefreshTokenStore implements RefreshTokenStore {
  private readonly tokens = new Map<string, Row>();
  private readonly revokedFamilies = new Set<string>();

  async add(record: RefreshTokenRecord): Promise<void> {
    this.tokens.set(record.id, { ...record });
  }

  async consume(tokenId: string, now: Date): Promise<{ outcome: ConsumeOutcome; record?: RefreshTokenRecord }> {
    const row = this.tokens.get(tokenId);
    if (!row) return { outcome: 'unknown' };
    const record = { id: row.id, familyId: row.familyId, userId: row.userId, expiresAt: row.expiresAt };
    if (this.revokedFamilies.has(row.familyId)) return { outcome: 'revoked', record };
    if (row.consumedAt) return { outcome: 'reused', record };
    row.consumedAt = now;
    return { outcome: 'consumed', record };
  }

  async revokeFamily(familyId: string): Promise<void> {
    this.revokedFamilies.add(familyId);
  }

  async find(tokenId: string): Promise<RefreshTokenRecord | undefined> {
    const row = this.tokens.get(tokenId);
    return row ? { id: row.id, familyId: row.familyId, userId: row.userId, expiresAt: row.expiresAt } : undefined;
  }

  async deleteForUser(userId: string): Promise<void> {
    deleteWhere(this.tokens, (row) => row.userId === userId);
  }

  async purgeExpired(before: Date): Promise<number> {
    const live = new Set<string>();
    for (const row of this.tokens.values()) if (row.expiresAt.getTime() >= before.getTime()) live.add(row.familyId);
    const purged = deleteWhere(this.tokens, (row) => !live.has(row.familyId));
    for (const family of this.revokedFamilies) if (!live.has(family)) this.revokedFamilies.delete(family);
    return purged;
  }
}
