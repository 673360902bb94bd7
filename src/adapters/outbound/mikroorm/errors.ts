import { ConnectionException } from '@mikro-orm/core';
import { ServiceUnavailableError } from '../../../domain/shared/DomainError.js';

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '08000', '08003', '08006']);

/** Whether a driver error means "the database cannot be reached" rather than a bad query. */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? String((error as { code: unknown }).code) : '';
  if (CONNECTION_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|Knex: Timeout acquiring a connection|connect ECONNREFUSED/i.test(message);
}

/** Runs a database operation, turning "database unreachable" into ServiceUnavailableError (503). */
export async function guarded<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isConnectionFailure(error)) throw new ServiceUnavailableError('database unavailable');
    throw error;
  }
}
