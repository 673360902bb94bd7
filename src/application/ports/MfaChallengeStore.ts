import type { SingleUseRecord, SingleUseRecords } from './SingleUseRecords.js';
import type { SignInMethod } from '../../domain/user/SignInMethod.js';

/** A sign-in waiting for its second factor (an `mfa_token`): found by selector, its verifier kept only hashed. */
export interface MfaChallenge extends SingleUseRecord {
  readonly userId: string;
  /** What the first step proved (`pwd`, `fed`): the session's `amr` gains the second factor's method. */
  readonly methods: readonly SignInMethod[];
}

/** Where pending second-factor challenges live (their rows go with the user); single use, as SingleUseRecords promise. */
export type MfaChallengeStore = SingleUseRecords<MfaChallenge>;
