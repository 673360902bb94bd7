import type { Clock } from '../ports/Clock.js';
import type { JobHandler } from '../ports/Jobs.js';

/** The job that purges expired tokens, scheduled hourly by default (`jobs.schedules`). */
export const TOKENS_PURGE_JOB = 'tokens.purge';

/** How long past its expiry a record is kept (for a user's or an admin's late questions about it). */
export const PURGE_AFTER_MS = 24 * 60 * 60 * 1000;

/** A store whose records expire: it deletes those that expired before a time and answers how many. */
export interface ExpiringRecords {
  purgeExpired(before: Date): Promise<number>;
}

/**
 * Deletes the records of every store it is given that expired more than a day ago — sessions,
 * refresh tokens, e-mailed tokens, second-factor challenges (`mfa_token`s), passkey ceremonies'
 * challenges, and the states and one-time codes of sign-ins with an identity provider — so those
 * tables do not grow forever (docs/jobs.md). Nothing it deletes still works: an expired token is
 * refused whether its record is there or not.
 *
 * The stores are purged one after another in the order given: a refresh token family must go
 * before its session. A purge answers how many records went from each store, by its name.
 */
export class PurgeExpiredTokens<Name extends string> {
  constructor(
    private readonly stores: Readonly<Record<Name, ExpiringRecords>>,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<Record<Name, number>> {
    const before = new Date(this.clock.now().getTime() - PURGE_AFTER_MS);
    const purged = {} as Record<Name, number>;
    for (const name of Object.keys(this.stores) as Name[]) {
      purged[name] = await this.stores[name].purgeExpired(before);
    }
    return purged;
  }

  /** As the `tokens.purge` job's handler. */
  handler(): JobHandler {
    return async () => {
      await this.execute();
    };
  }
}
