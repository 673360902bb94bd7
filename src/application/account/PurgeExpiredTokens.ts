import type { Clock } from '../ports/Clock.js';
import type { EmailTokenStore } from '../ports/EmailTokenStore.js';
import type { JobHandler } from '../ports/Jobs.js';
import type { MfaChallengeStore } from '../ports/MfaChallengeStore.js';
import type { OidcHandoffStore } from '../ports/OidcHandoffStore.js';
import type { PasskeyChallengeStore } from '../ports/PasskeyChallengeStore.js';
import type { RefreshTokenStore } from '../ports/RefreshTokenStore.js';
import type { SessionStore } from '../ports/SessionStore.js';

/** The job that purges expired tokens, scheduled hourly by default (`jobs.schedules`). */
export const TOKENS_PURGE_JOB = 'tokens.purge';

/** How long past its expiry a record is kept (for a user's or an admin's late questions about it). */
export const PURGE_AFTER_MS = 24 * 60 * 60 * 1000;

/** What one purge deleted. */
export interface PurgedTokens {
  readonly sessions: number;
  readonly refreshTokens: number;
  readonly emailTokens: number;
  readonly mfaChallenges: number;
  /** States and one-time codes of sign-ins with an identity provider. */
  readonly oidcHandoffs: number;
  readonly passkeyChallenges: number;
}

/**
 * Deletes the sessions, refresh tokens, e-mailed tokens, second-factor challenges (`mfa_token`s),
 * passkey ceremonies' challenges, and the states and one-time codes of sign-ins with an identity
 * provider that expired more than a day ago, so those tables do not grow forever (docs/jobs.md). Nothing it deletes still works: an expired
 * token is refused whether its record is there or not.
 */
export class PurgeExpiredTokens {
  constructor(
    private readonly sessions: SessionStore,
    private readonly refreshTokens: RefreshTokenStore,
    private readonly emailTokens: EmailTokenStore,
    private readonly mfaChallenges: MfaChallengeStore,
    private readonly oidcHandoffs: OidcHandoffStore,
    private readonly passkeyChallenges: PasskeyChallengeStore,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<PurgedTokens> {
    const before = new Date(this.clock.now().getTime() - PURGE_AFTER_MS);
    // Refresh tokens first: a family goes once its every token expired, its session after.
    const refreshTokens = await this.refreshTokens.purgeExpired(before);
    const sessions = await this.sessions.purgeExpired(before);
    const emailTokens = await this.emailTokens.purgeExpired(before);
    const mfaChallenges = await this.mfaChallenges.purgeExpired(before);
    const oidcHandoffs = await this.oidcHandoffs.purgeExpired(before);
    const passkeyChallenges = await this.passkeyChallenges.purgeExpired(before);
    return { sessions, refreshTokens, emailTokens, mfaChallenges, oidcHandoffs, passkeyChallenges };
  }

  /** As the `tokens.purge` job's handler. */
  handler(): JobHandler {
    return async () => {
      await this.execute();
    };
  }
}
