import type { MfaChallenge, MfaChallengeStore } from '../../../application/ports/MfaChallengeStore.js';
import { InMemorySingleUseRecords } from './InMemorySingleUseRecords.js';

/** Second-factor challenges in memory. */
export class InMemoryMfaChallengeStore extends InMemorySingleUseRecords<MfaChallenge> implements MfaChallengeStore {}
