import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';
import { StorageFullError } from '../../../domain/shared/DomainError.js';

/** The one thing the check needs of a database: a round trip (rejecting with ServiceUnavailableError when it cannot serve). */
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
    } catch (error) {
      // The driver's message may carry host names or credentials: publish a fixed one, or our own.
      if (error instanceof StorageFullError) return { status: 'down', message: error.message };
      return { status: 'down', message: 'database unreachable' };
    }
  }
}
