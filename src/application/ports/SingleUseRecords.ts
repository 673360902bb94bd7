/**
 * What every single-use record has: the selector it is found by, the hash of its verifier (the
 * secret half of the token a client holds, never stored itself), and its lifetime.
 */
export interface SingleUseRecord {
  readonly selector: string;
  readonly verifierHash: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/**
 * Records a token stands for and spends once — a second-factor challenge, a passkey ceremony's
 * challenge, a provider sign-in's state or one-time code. Promises: `find` answers a record only
 * while it is neither spent nor expired; `spend` is atomic — of concurrent spends of one record one
 * answers true; records that expired before a time are purged, and nothing purged still worked.
 */
export interface SingleUseRecords<T extends SingleUseRecord> {
  add(record: T): Promise<void>;
  /** The record when it is neither spent nor expired at `now`. */
  find(selector: string, now: Date): Promise<T | undefined>;
  /** Marks it spent at `now`; false when it was spent or expired already. */
  spend(selector: string, now: Date): Promise<boolean>;
  /** Deletes the records that expired before `before`; answers how many. */
  purgeExpired(before: Date): Promise<number>;
}
