import type {
  ConsumeOutcome,
  RefreshTokenRecord,
  RefreshTokenStore,
} from '../../../application/ports/RefreshTokenStore.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { guarded } from './errors.js';
import { RefreshTokenSchema, type RefreshTokenRow } from './schemas/RefreshTokenSchema.js';

const toRecord = (row: RefreshTokenRow): RefreshTokenRecord => ({
  id: row.id,
  familyId: row.familyId,
  userId: row.userId,
  expiresAt: new Date(row.expiresAt),
});

/**
 * Refresh-token families in the database. `consume` is one conditional UPDATE, so of two
 * concurrent uses exactly one wins; revoking a family marks every token of it, and a token
 * whose family has a revoked token is revoked too.
 */
export class MikroOrmRefreshTokenStore extends MikroOrmStore implements RefreshTokenStore {
  add(record: RefreshTokenRecord): Promise<void> {
    return guarded(this.orm, async () => {
      await this.em().insert(RefreshTokenSchema, { ...record, consumedAt: null, revokedAt: null });
    });
  }

  consume(tokenId: string, now: Date): Promise<{ outcome: ConsumeOutcome; record?: RefreshTokenRecord }> {
    return guarded(this.orm, async () => {
      const em = this.em();
      const won = await em.nativeUpdate(
        RefreshTokenSchema,
        { id: tokenId, consumedAt: null, revokedAt: null },
        { consumedAt: now },
      );
      // Read on the primary, after its own update: a replica may have neither the update nor the token.
      const primary = { connectionType: 'write' } as const;
      const row = await em.findOne(RefreshTokenSchema, { id: tokenId }, { disableIdentityMap: true, ...primary });
      if (!row) return { outcome: 'unknown' };
      const record = toRecord(row);
      // A token added to its family after the family was revoked (a refresh racing reuse
      // detection or logout) has no revokedAt of its own: the family's other tokens say it.
      const familyRevoked =
        row.revokedAt != null ||
        (await em.count(RefreshTokenSchema, { familyId: row.familyId, revokedAt: { $ne: null } }, primary)) > 0;
      if (familyRevoked) return { outcome: 'revoked', record };
      if (won === 1) return { outcome: 'consumed', record };
      return { outcome: 'reused', record };
    });
  }

  revokeFamily(familyId: string, now: Date): Promise<void> {
    return guarded(this.orm, async () => {
      await this.em().nativeUpdate(RefreshTokenSchema, { familyId, revokedAt: null }, { revokedAt: now });
    });
  }

  find(tokenId: string): Promise<RefreshTokenRecord | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.em().findOne(RefreshTokenSchema, { id: tokenId }, { disableIdentityMap: true });
      return row ? toRecord(row) : undefined;
    });
  }

  deleteForUser(userId: string): Promise<void> {
    return guarded(this.orm, async () => {
      await this.em().nativeDelete(RefreshTokenSchema, { userId });
    });
  }

  purgeExpired(before: Date): Promise<number> {
    return guarded(this.orm, () =>
      this.sql.run(
        'delete from refresh_tokens where family_id in ' +
          '(select family_id from refresh_tokens group by family_id having max(expires_at) < ?)',
        [before],
      ),
    );
  }
}
