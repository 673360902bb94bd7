import type { PasskeyChallenge, PasskeyChallengeStore } from '../../../application/ports/PasskeyChallengeStore.js';
import { InMemorySingleUseRecords } from './InMemorySingleUseRecords.js';

/** The challenges of passkey ceremonies in memory. */
export class InMemoryPasskeyChallengeStore
  extends InMemorySingleUseRecords<PasskeyChallenge>
  implements PasskeyChallengeStore {}
