import type { AccountMailKind } from './Mailer.js';
import type { Transaction } from './Jobs.js';

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
  /** The client IP of the request that asked for it, when there was one (a user's own request). */
  readonly requestedIp?: string;
}

/** How many tokens may be made since `since`: per address (of one purpose), and per requesting IP (of any). */
export interface EmailTokenLimits {
  readonly since: Date;
  /** Tokens of the record's purpose sent to the record's address, whichever account it belonged to. */
  readonly perAddress: number;
  /** Tokens of any purpose asked for from the record's `requestedIp` (when the record has one). */
  readonly perIp: number;
}

/**
 * Single-use e-mailed tokens (docs/authentication.md). Promises: `spend` succeeds for exactly one of any
 * number of concurrent callers; a spent token is never found again; records go with their user.
 */
export interface EmailTokenStore {
  /**
   * Stores `record` unless, since `limits.since`, `limits.perAddress` tokens of its purpose were
   * already made for its address, or `limits.perIp` tokens were asked for from its IP; `false`
   * (nothing stored) then. Inside `within` when given: stored only if that transaction commits.
   */
  addWithinLimit(record: EmailTokenRecord, limits: EmailTokenLimits, within?: Transaction): Promise<boolean>;
  /** The unspent token with this selector (expired or not: the caller checks). */
  find(selector: string): Promise<EmailTokenRecord | undefined>;
  /** Spends the token; `true` for the one caller that spent it, `false` when it was spent already or is unknown. */
  spend(selector: string, now: Date): Promise<boolean>;
  /** Spends every unspent token of `purpose` of the user, or of every purpose when absent. */
  spendAll(userId: string, purpose: AccountMailKind | undefined, now: Date): Promise<void>;
  /** Deletes the tokens that expired before `before` (spent or not); answers how many (`tokens.purge`). */
  purgeExpired(before: Date): Promise<number>;
}
