import { ConnectionException, type MikroORM } from '@mikro-orm/core';
import { DomainError, ServiceUnavailableError, StorageFullError } from '../../../domain/shared/DomainError.js';

/** What kind of failure a database operation met (the database errors metric). */
export type DatabaseFailure = 'timeout' | 'unavailable' | 'storage_full' | 'other';

/** The drivers' error codes, by what they mean for the service. */
const CODES: ReadonlyMap<string, DatabaseFailure> = new Map([
  // PostgreSQL: canceled by statement_timeout (`database.query_timeout`); a socket given up on
  ['57014', 'timeout'],
  ['ETIMEDOUT', 'timeout'],
  ['ECONNREFUSED', 'unavailable'],
  ['ECONNRESET', 'unavailable'],
  ['EPIPE', 'unavailable'],
  // PostgreSQL: admin shutdown, cannot connect now, connection exceptions
  ['57P01', 'unavailable'],
  ['57P03', 'unavailable'],
  ['08000', 'unavailable'],
  ['08003', 'unavailable'],
  ['08006', 'unavailable'],
  // SQLite: the file cannot be opened or read, or stays locked past the busy timeout
  ['SQLITE_CANTOPEN', 'unavailable'],
  ['SQLITE_IOERR', 'unavailable'],
  ['SQLITE_BUSY', 'unavailable'],
  // SQLite's "database or disk is full"; PostgreSQL's disk_full
  ['SQLITE_FULL', 'storage_full'],
  ['53100', 'storage_full'],
]);

/**
 * Failures node-postgres and knex report with no code at all, by the start of their fixed messages
 * (the only handle they give; knex and the ORM may put the statement and ` - ` in front).
 */
const UNCODED: readonly (readonly [string, DatabaseFailure])[] = [
  // node-postgres: past `query_timeout` (database.ts), or no connection within `connectionTimeoutMillis`
  ['Query read timeout', 'timeout'],
  ['timeout expired', 'timeout'],
  // knex: no pooled connection free within `acquireConnectionTimeout`
  ['Knex: Timeout acquiring a connection.', 'timeout'],
  // node-postgres: the connection was lost, under a query or before it
  ['Connection terminated unexpectedly', 'unavailable'],
  ['Connection terminated', 'unavailable'],
  ['Client has encountered a connection error and is not queryable', 'unavailable'],
  // knex: the pool is closed (the service is stopping)
  ['Unable to acquire a connection', 'unavailable'],
];

const codeOf = (error: object): string => ('code' in error ? String((error as { code: unknown }).code) : '');

/** What a driver error means: by its code, by the ORM's class for "cannot connect", else by its fixed uncoded message. */
function failureOf(error: unknown): DatabaseFailure {
  if (typeof error !== 'object' || error === null) return 'other';
  const byCode = CODES.get(codeOf(error));
  if (byCode) return byCode;
  if (error instanceof ConnectionException) return 'unavailable';
  const message = error instanceof Error ? error.message : '';
  for (const [text, kind] of UNCODED) if (message.startsWith(text) || message.includes(` - ${text}`)) return kind;
  return 'other';
}

/** Whether a driver error means the database's storage has no room left for a write. */
export function isStorageFull(error: unknown): boolean {
  return failureOf(error) === 'storage_full';
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

/** Who is told of each failed operation on a database (at most one listener per database). */
const failureListeners = new WeakMap<MikroORM, (kind: DatabaseFailure) => void>();

/** Tells `listener` the kind of every database operation on `orm` that fails from here on. */
export function onDatabaseFailure(orm: MikroORM, listener: (kind: DatabaseFailure) => void): void {
  failureListeners.set(orm, listener);
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
    if (error instanceof DomainError) throw error;
    const failure = failureOf(error);
    failureListeners.get(orm)?.(failure);
    if (failure === 'storage_full') {
      storageFull.add(orm);
      throw new StorageFullError();
    }
    if (failure !== 'other') throw new ServiceUnavailableError('database unavailable');
    throw error;
  }
}
