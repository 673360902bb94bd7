import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/** The one thing the check needs of a database: a round trip. */
export interface Pingable {
  ping(): Promise<void>;
}

/** `database`: one round trip to the database (e.g. `select 1`). */
export class DatabaseHealthCheck implements HealthCheck {
  readonly name = 'database';

  constructor(private readonly db: Pingable) {}

  async check(): Promise<CheckOutcome> {
    try {
      await this.db.ping();
      return { status: 'up' };
    } catch {
      // The driver's message may carry host names or credentials: publish a fixed one.
      return { status: 'down', message: 'database unreachable' };
    }
  }
}
