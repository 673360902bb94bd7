import type { Transaction } from '../../domain/shared/Transaction.js';

/** Whether a credential lives on one device or may be synced to others (WebAuthn's backup eligibility). */
export type PasskeyDeviceType = 'singleDevice' | 'multiDevice';

/** A user's WebAuthn credential as stored: its public key only, never anything secret. */
export interface Passkey {
  readonly id: string;
  readonly userId: string;
  /** The credential id, base64url: what an assertion names. Unique across users. */
  readonly credentialId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The signature counter last seen (0 for an authenticator that keeps none). */
  readonly counter: number;
  /** How the browser may reach the authenticator (`internal`, `usb`, `hybrid`, …), as it told at registration. */
  readonly transports: readonly string[];
  readonly deviceType: PasskeyDeviceType;
  readonly backedUp: boolean;
  /** A name for people (`MacBook`), given at registration or made up. */
  readonly name: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

/**
 * Where passkeys live (their rows go with the user). Promises: `add` and `remove` join `within`
 * when given, and first lock the user's row there, so that the number of passkeys they answer is
 * exact even while other transactions add or remove the user's passkeys (the user's `has_passkey`
 * is written from it in the same transaction); `recordUse` is atomic — of concurrent uses that
 * each present a counter, only one that moves the counter forward is recorded.
 */
export interface PasskeyStore {
  /** Stores a new passkey; false (nothing stored) when its credential id is stored already. */
  add(passkey: Passkey, within?: Transaction): Promise<boolean>;
  /** The user's passkeys, oldest first (inside `within` when given). */
  listOf(userId: string, within?: Transaction): Promise<Passkey[]>;
  findByCredentialId(credentialId: string): Promise<Passkey | undefined>;
  /** How many passkeys the user has (inside `within` when given, after its user-row lock when it took one). */
  countOf(userId: string, within?: Transaction): Promise<number>;
  /** Removes the user's passkey `id`; false when the user has no passkey of that id. */
  remove(userId: string, id: string, within?: Transaction): Promise<boolean>;
  /**
   * Records a use at `now` with the authenticator's new signature `counter` and backup state:
   * true when recorded — the counter moved forward, or both it and the stored one are 0 (an
   * authenticator that keeps no counter); false otherwise (a cloned authenticator's replay, or a
   * concurrent use that got there first).
   */
  recordUse(id: string, counter: number, backedUp: boolean, now: Date): Promise<boolean>;
}
