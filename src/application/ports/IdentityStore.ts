import type { Transaction } from '../../domain/shared/Transaction.js';

/** An account's link to an identity at a provider: the provider's issuer and its subject there. */
export interface Identity {
  readonly id: string;
  readonly userId: string;
  /** The provider's issuer (`iss` of its ID tokens). */
  readonly issuer: string;
  /** The provider's stable id of the person (`sub`). */
  readonly subject: string;
  /** The address the provider gave when the identity was linked, if any. */
  readonly email: string | null;
  readonly createdAt: Date;
}

/**
 * Where identities live (their rows go with their user). Promises: (issuer, subject) is linked to
 * at most one account — `add` answers false, storing nothing, when it is linked already (however
 * many adds race); lists are oldest first, then by id.
 */
export interface IdentityStore {
  /** Inside `within` when given: stored only if that transaction commits (with the account it links). */
  add(identity: Identity, within?: Transaction): Promise<boolean>;
  find(issuer: string, subject: string): Promise<Identity | undefined>;
  /** The user's identities (inside `within` when given). */
  listOf(userId: string, within?: Transaction): Promise<Identity[]>;
  /** How many identities the user has (inside `within` when given, after its user-row lock when it took one). */
  countOf(userId: string, within?: Transaction): Promise<number>;
  /**
   * Deletes the user's identity `id`; false when the user has no such identity. Inside `within`
   * when given, having first locked the user's row there, so that counts taken after it are exact
   * while other transactions change the user's ways in.
   */
  remove(userId: string, id: string, within?: Transaction): Promise<boolean>;
}
