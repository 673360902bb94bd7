import { InvalidAccountTokenError } from '../../domain/user/UserErrors.js';
import type { Clock } from '../ports/Clock.js';
import type { OneTimeSecrets } from '../ports/OneTimeSecrets.js';
import type { PasskeyCeremony, PasskeyChallengeStore } from '../ports/PasskeyChallengeStore.js';

/** How long a passkey ceremony's challenge lives (and the browser is told it may wait). */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** What CeremonyChallenges is given, by name. */
export interface CeremonyChallengesDependencies {
  readonly challenges: PasskeyChallengeStore;
  readonly secrets: OneTimeSecrets;
  readonly clock: Clock;
}

/**
 * The challenges of passkey ceremonies: each one a OneTimeSecrets token (a random selector and a
 * keyed verifier, of which only the verifier's hash is stored), made for one ceremony — a user's
 * registration, or a sign-in bound to no user — and spent by its first answer, whether that answer
 * then verifies or not (a ceremony is one attempt: the browser asks for new options).
 */
export class CeremonyChallenges {
  constructor(private readonly deps: CeremonyChallengesDependencies) {}

  /** A new challenge for `purpose` (of user `userId`; `null` for a sign-in), valid PASSKEY_CHALLENGE_TTL_MS. */
  async issue(purpose: PasskeyCeremony, userId: string | null): Promise<string> {
    const now = this.deps.clock.now();
    const secret = this.deps.secrets.create();
    await this.deps.challenges.add({
      selector: secret.selector,
      verifierHash: secret.verifierHash,
      purpose,
      userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_MS),
    });
    return secret.token;
  }

  /**
   * Spends `challenge` when it is one this service issued for `purpose` (and user `userId`), neither
   * spent nor expired; of concurrent spends of one challenge only one succeeds.
   *
   * @throws InvalidAccountTokenError (`INVALID_TOKEN`) otherwise.
   */
  async spend(challenge: string | undefined, purpose: PasskeyCeremony, userId: string | null): Promise<void> {
    const { challenges, secrets, clock } = this.deps;
    const now = clock.now();
    const parsed = challenge === undefined ? undefined : secrets.parse(challenge);
    const stored = parsed ? await challenges.find(parsed.selector, now) : undefined;
    if (
      !parsed ||
      !stored ||
      stored.purpose !== purpose ||
      stored.userId !== userId ||
      !secrets.matches(parsed.verifier, stored.verifierHash) ||
      !(await challenges.spend(stored.selector, now))
    ) {
      throw new InvalidAccountTokenError();
    }
  }
}
