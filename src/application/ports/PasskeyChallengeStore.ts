import type { SingleUseRecord, SingleUseRecords } from './SingleUseRecords.js';
/** Which ceremony a challenge was made for: a registration's is never accepted for a sign-in, nor the reverse. */
export type PasskeyCeremony = 'registration' | 'authentication';

/**
 * The challenge of a WebAuthn ceremony, as stored: found by selector, only its verifier's hash
 * kept (the challenge itself is `<selector>.<verifier>`, a OneTimeSecrets token).
 */
export interface PasskeyChallenge extends SingleUseRecord {
  readonly purpose: PasskeyCeremony;
  /** The user registering; `null` for a sign-in, whose user is not known until the credential names it. */
  readonly userId: string | null;
}

/** Where the challenges of passkey ceremonies wait for their answer (a user's go with the user); single use, as SingleUseRecords promise. */
export type PasskeyChallengeStore = SingleUseRecords<PasskeyChallenge>;
