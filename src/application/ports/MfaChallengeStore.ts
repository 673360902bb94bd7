import type { SignInMethod } from '../../domain/user/SignInMethod.js';

/** A sign-in waiting for its second factor (an `mfa_token`): found by selector, its verifier kept only hashed. */
export interface MfaChallenge {
  readonly selector: string;
  readonly verifierHash: string;
  readonly userId: string;
  /** What the first step proved (`pwd`, `fed`): the session's `amr` gains the second factor's method. */
  readonly methods: readonly SignInMethod[];
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/**
 * Where pending second-factor challenges live (their rows go with the user). Promises: `spend` is
 * atomic — of any number of concurrent spends of one challenge at most one answers true, and never
 * for an expired or spent one.
 */
export interface MfaChallengeStore {
  add(challenge: MfaChallenge): Promise<void>;
  /** The challenge when it is neither spent nor expired at `now`. */
  find(selector: string, now: Date): Promise<MfaChallenge | undefined>;
  /** Marks it spent at `now`; false when it was spent or expired already. */
  spend(selector: string, now: Date): Promise<boolean>;
  /** Deletes the challenges that expired before `before`; answers how many. */
  purgeExpired(before: Date): Promise<number>;
}
