import { ConnectionException, type MikroORM } from '@mikro-orm/core';
import { DomainError, ServiceUnavailableError, StorageFullError } from '../../../domain/shared/DomainError.js';

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
  // PostgreSQL: canceled by statement_timeout (`database.query_timeout`)
  '57014',
  // SQLite: the file cannot be opened or read, or stays locked past the busy timeout
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_BUSY',
]);

/** SQLite's "database or disk is full"; PostgreSQL's `disk_full` (53100). */
const STORAGE_FULL_CODES = new Set(['SQLITE_FULL', '53100']);

const codeOf = (error: object): string => ('code' in error ? String((error as { code: unknown }).code) : '');

/** Whether a driver error means "the database cannot be reached" rather than a bad query. */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  if (typeof error !== 'object' || error === null) return false;
  if (CONNECTION_CODES.has(codeOf(error))) return true;
  const message = error instanceof Error ? error.message : '';
  // The pool could not hand out a connection (it is closed, or every connection is stuck), or a
  // connection was ended under a query (a query past `database.query_timeout` ends its connection),
  // or pg's connect timeout destroyed the socket (`timeout expired`).
  return /Connection terminated|is not queryable|Knex: Timeout acquiring a connection|Unable to acquire a connection|connect ECONNREFUSED|timeout exceeded when trying to connect|^timeout expired$/i.test(
    message,
  );
}

/** Whether a driver error means the database's storage has no room left for a write. */
export function isStorageFull(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (STORAGE_FULL_CODES.has(codeOf(error))) return true;
  const message = error instanceof Error ? error.message : '';
  return /database or disk is full|No space left on device/i.test(message);
}

/** The databases whose last write failed for lack of storage (cleared by the health check's probe write once it works). */
const storageFull = new WeakSet<MikroORM>();

/** Whether a write on this database last failed for lack of storage, and no write has worked since. */
export function storageFullOf(orm: MikroORM): boolean {
  return storageFull.has(orm);
}

/** Records that a write on this database worked again. */
export function storageWritable(orm: MikroORM): void {
  storageFull.delete(orm);
}

/** What kind of failure a database operation met (the database errors metric). */
export type DatabaseFailure = 'timeout' | 'unavailable' | 'storage_full' | 'other';

/** Who is told of each failed operation on a database (at most one listener per database). */
const failureListeners = new WeakMap<MikroORM, (kind: DatabaseFailure) => void>();

/** Tells `listener` the kind of every database operation on `orm` that fails from here on. */
export function onDatabaseFailure(orm: MikroORM, listener: (kind: DatabaseFailure) => void): void {
  failureListeners.set(orm, listener);
}

/** A query past `database.query_timeout` (ours, or PostgreSQL's statement_timeout), or no pooled connection in time. */
function isTimeout(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = codeOf(error);
  if (code === '57014' || code === 'ETIMEDOUT') return true;
  const message = error instanceof Error ? error.message : '';
  return /Knex: Timeout acquiring a connection|timeout exceeded when trying to connect/i.test(message);
}

function failureOf(error: unknown): DatabaseFailure {
  if (isStorageFull(error)) return 'storage_full';
  if (isTimeout(error)) return 'timeout';
  if (isConnectionFailure(error)) return 'unavailable';
  return 'other';
}

/**
 * Runs a database operation, turning "database unreachable" (or a query past the query timeout)
 * into ServiceUnavailableError `database unavailable`, and "storage full" into
 * StorageFullError (`storage is full`) — both 503, never 500 — and remembering the latter
 * for the database health check. Every failure but a domain error the operation chose to throw
 * (a taken e-mail, a stale version) is told to the database's failure listener, if any.
 */
export async function guarded<T>(orm: MikroORM, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof DomainError)) failureListeners.get(orm)?.(failureOf(error));
    if (isStorageFull(error)) {
      storageFull.add(orm);
      throw new StorageFullError();
    }
    if (isConnectionFailure(error)) throw new ServiceUnavailableError('database unavailable');
    throw error;
  }
}
