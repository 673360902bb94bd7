import type { FileStorage } from '../../../application/ports/FileStorage.js';
import type { CheckOutcome, HealthCheck } from '../../../application/ports/HealthCheck.js';

/**
 * `storage`: whether the file storage can be reached and used (its folder written, its bucket
 * there). Not critical — only uploads and downloads need it — so a store that cannot be reached is
 * `degraded`, with the store's own reason, and readiness stays up.
 */
export class StorageHealthCheck implements HealthCheck {
  readonly name = 'storage';

  constructor(private readonly storage: FileStorage) {}

  async check(signal: AbortSignal): Promise<CheckOutcome> {
    try {
      await this.storage.check(signal);
      return { status: 'up' };
    } catch (error) {
      const reason = error instanceof Error && error.message !== '' ? error.message : 'unreachable';
      return { status: 'degraded', message: `${this.storage.engine} storage: ${reason}` };
    }
  }
}
