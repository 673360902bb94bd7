import type { Transaction } from '../../domain/shared/Transaction.js';

/** A user's TOTP enrolment as stored: the secret only ever sealed (SecretBox). */
export interface TotpEnrolment {
  readonly userId: string;
  /** The base32 secret, sealed by the SecretBox; never stored in the clear. */
  readonly sealedSecret: string;
  /** When the user confirmed it with a code; `null` while it waits for that (not on yet). */
  readonly confirmedAt: Date | null;
  /** The latest TOTP time step accepted for the user: a code of that step or an earlier one is refused. */
  readonly lastUsedStep: number | null;
  readonly createdAt: Date;
}

/**
 * Where TOTP enrolments and recovery codes live (one enrolment per user; its rows go with the
 * user). Promises: `useStep` and `useRecoveryCode` are atomic — of any number of concurrent calls
 * with one step or one code, at most one answers true; recovery codes are kept only as the hashes
 * given. `confirm` and `remove` join `within` when given (committed with the user's flag).
 */
export interface TotpStore {
  find(userId: string): Promise<TotpEnrolment | undefined>;
  /** Stores a new unconfirmed enrolment for the user, replacing an unconfirmed one; never a confirmed one (then false). */
  begin(enrolment: TotpEnrolment): Promise<boolean>;
  /**
   * Turns the user's unconfirmed enrolment on at `now`, with `step` as its last used step, and
   * replaces the user's recovery codes with `recoveryCodeHashes`, all at once. False when there is
   * no unconfirmed enrolment (none, or confirmed already).
   */
  confirm(
    userId: string,
    now: Date,
    step: number,
    recoveryCodeHashes: readonly string[],
    within?: Transaction,
  ): Promise<boolean>;
  /** Removes the user's enrolment and recovery codes; true when there was an enrolment. Inside `within` when given. */
  remove(userId: string, within?: Transaction): Promise<boolean>;
  /** Records `step` as used when it is later than the last used step of the user's confirmed enrolment. */
  useStep(userId: string, step: number): Promise<boolean>;
  /** Spends the user's unused recovery code with this hash at `now`; false when there is none. */
  useRecoveryCode(userId: string, codeHash: string, now: Date): Promise<boolean>;
  /** How many unused recovery codes the user has left. */
  recoveryCodesLeft(userId: string): Promise<number>;
}
