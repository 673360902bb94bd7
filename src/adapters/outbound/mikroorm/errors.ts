import { ConnectionException, UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/core';
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

/** The drivers' codes for a write that would give two rows one value of a unique index (or primary key). */
const UNIQUE_CODES: ReadonlySet<string> = new Set([
  '23505',
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
]);

/**
 * What a unique index's refusal says of the index, when the driver error is one (by its code, or
 * the ORM's class): the text naming its columns — PostgreSQL's `detail` (`Key (isbn)=(…) already
 * exists.`) up to the value, SQLite's message (`UNIQUE constraint failed: books.isbn`, or `index
 * 'books_lower_isbn'` for an index on an expression) — and its name where the driver gives one
 * (PostgreSQL's `constraint`); `undefined` for any other error. The columns are read from these
 * texts only because no driver gives them apart.
 */
export function uniqueViolationOf(error: unknown): { readonly names: string; readonly index?: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if (!UNIQUE_CODES.has(codeOf(error)) && !(error instanceof UniqueConstraintViolationException)) return undefined;
  const { detail, constraint, message } = error as { detail?: unknown; constraint?: unknown; message?: unknown };
  const index = typeof constraint === 'string' ? constraint : undefined;
  if (typeof detail === 'string' && detail.startsWith('Key (')) {
    const end = detail.indexOf(')=(');
    return { names: detail.slice('Key ('.length, end < 0 ? undefined : end), ...(index ? { index } : {}) };
  }
  const text = typeof message === 'string' ? message : '';
  const failed = text.indexOf('constraint failed: ');
  const names = failed < 0 ? '' : text.slice(failed + 'constraint failed: '.length);
  const named = /^index '([^']+)'/.exec(names);
  return { names, ...(index ? { index } : named?.[1] ? { index: named[1] } : {}) };
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
