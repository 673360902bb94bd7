/** Which ceremony a challenge was made for: a registration's is never accepted for a sign-in, nor the reverse. */
export type PasskeyCeremony = 'registration' | 'authentication';

/**
 * The challenge of a WebAuthn ceremony, as stored: found by selector, only its verifier's hash
 * kept (the challenge itself is `<selector>.<verifier>`, a OneTimeSecrets token).
 */
export interface PasskeyChallenge {
  readonly selector: string;
  readonly verifierHash: string;
  readonly purpose: PasskeyCeremony;
  /** The user registering; `null` for a sign-in, whose user is not known until the credential names it. */
  readonly userId: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/**
 * Where the challenges of passkey ceremonies wait for their answer (a user's go with the user).
 * Promises: `spend` is atomic — of any number of concurrent spends of one challenge at most one
 * answers true, and never for an expired or spent one.
 */
export interface PasskeyChallengeStore {
  add(challenge: PasskeyChallenge): Promise<void>;
  /** The challenge when it is neither spent nor expired at `now`. */
  find(selector: string, now: Date): Promise<PasskeyChallenge | undefined>;
  /** Marks it spent at `now`; false when it was spent or expired already. */
  spend(selector: string, now: Date): Promise<boolean>;
  /** Deletes the challenges that expired before `before`; answers how many. */
  purgeExpired(before: Date): Promise<number>;
}
