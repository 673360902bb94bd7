import { ConnectionException } from '@mikro-orm/core';
import { ServiceUnavailableError } from '../../../domain/shared/DomainError.js';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  // PostgreSQL: admin shutdown, cannot connect now, connection exceptions
  '57P01',
  '57P03',
  '08000',
  '08003',
  '08006',
  // SQLite: the file cannot be opened or read, or stays locked past the busy timeout
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_BUSY',
]);

/** Whether a driver error means "the database cannot be reached" rather than a bad query. */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? String((error as { code: unknown }).code) : '';
  if (CONNECTION_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : '';
  // The pool could not hand out a connection (it is closed, or every connection is stuck).
  return /Connection terminated|Knex: Timeout acquiring a connection|Unable to acquire a connection|connect ECONNREFUSED/i.test(message);
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
