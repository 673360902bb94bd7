/** One issued refresh token, as remembered by the service. */
export interface RefreshTokenRecord {
  readonly id: string;
  /** Every token descended from one login shares its family id. */
  readonly familyId: string;
  readonly userId: string;
  readonly expiresAt: Date;
}

/** What happened when a refresh token was presented for use. */
export type ConsumeOutcome = 'consumed' | 'reused' | 'revoked' | 'unknown';

/**
 * Refresh-token families, with single use and reuse detection. Promises: `consume` is atomic —
 * of two concurrent calls for one token exactly one gets `consumed`; a token already consumed
 * gets `reused`; a token of a revoked family gets `revoked`; anything else `unknown`.
 * Records survive a restart (persistent adapters).
 */
export interface RefreshTokenStore {
  add(record: RefreshTokenRecord): Promise<void>;
  consume(tokenId: string, now: Date): Promise<{ outcome: ConsumeOutcome; record?: RefreshTokenRecord }>;
  /** Stops every token of the family from working. */
  revokeFamily(familyId: string, now: Date): Promise<void>;
  /** The family a token belongs to, if the token is known. */
  find(tokenId: string): Promise<RefreshTokenRecord | undefined>;
  /** Forgets every token of a user (user deleted). */
  deleteForUser(userId: string): Promise<void>;
  /**
   * Forgets the families whose every token expired before `before` (a family goes whole, so a
   * revoked family's newest token never outlives the tokens that say it is revoked); answers how
   * many tokens (`tokens.purge`).
   */
  purgeExpired(before: Date): Promise<number>;
}
