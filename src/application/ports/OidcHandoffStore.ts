import type { SingleUseRecord } from './SingleUseRecords.js';

/**
 * A browser sign-in at a provider under way (its `state`): found by selector, its verifier kept
 * only hashed, the nonce and PKCE verifier only sealed.
 */
export interface OidcState extends SingleUseRecord {
  /** The provider's configured name (`auth.oidc.providers`). */
  readonly provider: string;
  /** Where the front end receives the outcome (one of `auth.oidc.redirect_uris`). */
  readonly redirectUri: string;
  /** The nonce and PKCE verifier, sealed (SecretBox) under the selector. */
  readonly sealed: string;
}

/** A finished browser sign-in waiting for the front end to trade its one-time `code`. */
export interface OidcCode extends SingleUseRecord {
  readonly userId: string;
}

/**
 * Where the single-use records of a browser sign-in live: states and one-time codes (codes go with
 * their user). Promises: `spendState` and `spendCode` are atomic — of any number of concurrent
 * spends of one record at most one answers true, and never for an expired or spent one.
 */
export interface OidcHandoffStore {
  addState(state: OidcState): Promise<void>;
  /** The state when it is neither spent nor expired at `now`. */
  findState(selector: string, now: Date): Promise<OidcState | undefined>;
  /** Marks it spent at `now`; false when it was spent or expired already. */
  spendState(selector: string, now: Date): Promise<boolean>;
  addCode(code: OidcCode): Promise<void>;
  /** The code when it is neither spent nor expired at `now`. */
  findCode(selector: string, now: Date): Promise<OidcCode | undefined>;
  /** Marks it spent at `now`; false when it was spent or expired already. */
  spendCode(selector: string, now: Date): Promise<boolean>;
  /** Deletes the states and codes that expired before `before`; answers how many. */
  purgeExpired(before: Date): Promise<number>;
}
