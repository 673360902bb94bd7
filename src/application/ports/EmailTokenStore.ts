import type { AccountMailKind } from './Mailer.js';

/**
 * A token sent by e-mail, as stored: never the token itself. The token is `<selector>.<verifier>`;
 * the selector finds the record, the verifier is kept only as a hash and compared in constant time.
 */
export interface EmailTokenRecord {
  readonly selector: string;
  readonly verifierHash: string;
  readonly userId: string;
  readonly purpose: AccountMailKind;
  /** The address it was sent to: a verification token proves only that address. */
  readonly email: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/**
 * Single-use e-mailed tokens (CONTRACT §17). Promises: `spend` succeeds for exactly one of any
 * number of concurrent callers; a spent token is never found again; records go with their user.
 */
export interface EmailTokenStore {
  /**
   * Stores `record` unless `limit.count` tokens of its purpose were already made for its user since
   * `limit.since`; `false` (nothing stored) then.
   */
  addWithinLimit(record: EmailTokenRecord, limit: { readonly count: number; readonly since: Date }): Promise<boolean>;
  /** The unspent token with this selector (expired or not: the caller checks). */
  find(selector: string): Promise<EmailTokenRecord | undefined>;
  /** Spends the token; `true` for the one caller that spent it, `false` when it was spent already or is unknown. */
  spend(selector: string, now: Date): Promise<boolean>;
  /** Spends every unspent token of `purpose` of the user. */
  spendAll(userId: string, purpose: AccountMailKind, now: Date): Promise<void>;
}
