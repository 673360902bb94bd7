import type { SqlStatements } from './sqlExecutor.js';
import { User } from '../../../domain/user/User.js';

/** A `users` row as a raw read returns it (timestamps: numbers on SQLite, Dates on PostgreSQL). */
export interface RawUserRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  password_hash: string;
  /** 0/1 on SQLite, which has no boolean. */
  email_verified: boolean | number;
  /** 0/1 on SQLite, like `email_verified`. */
  mfa_enabled: boolean | number;
  /** 0/1 on SQLite, like `email_verified`. */
  has_passkey: boolean | number;
  created_at: Date | number | string;
  updated_at: Date | number | string;
}

/** The columns of a `users` row, in the order of `userValues`. */
const COLUMNS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'role',
  'password_hash',
  'email_verified',
  'mfa_enabled',
  'has_passkey',
  'created_at',
  'updated_at',
] as const;

/** The columns of a RawUserRow, for a raw `select` (prefixed by `alias.` when given). */
export const userColumns = (alias?: string): string =>
  COLUMNS.map((column) => (alias ? `${alias}.${column}` : column)).join(', ');

/** A new user's row, its values bound in `userValues` order. */
export const INSERT_USER = `insert into users (${userColumns()}) values (${COLUMNS.map(() => '?').join(', ')})`;

/** The second-factor flags: written only by `SET_SECOND_FACTORS`, never by an update of the whole user. */
const SECOND_FACTOR_COLUMNS: readonly string[] = ['mfa_enabled', 'has_passkey'];
const UPDATED = COLUMNS.slice(1).filter((column) => !SECOND_FACTOR_COLUMNS.includes(column));

/** Every column of a user's row but its id and second-factor flags, then the id (`userUpdateValues`). */
export const UPDATE_USER = `update users set ${UPDATED.map((column) => `${column} = ?`).join(', ')} where id = ?`;

/** UPDATE_USER's values: `userValues(user)` without the id and the flags, then the id. */
export function userUpdateValues(user: User): (string | boolean | Date)[] {
  const [id, ...rest] = userValues(user);
  return [...rest.filter((_, i) => !SECOND_FACTOR_COLUMNS.includes(COLUMNS[i + 1]!)), id];
}

/** A `setSecondFactors` statement for the flags given (and `updated_at`), then the id. */
export function setSecondFactors(flags: { mfaEnabled?: boolean; hasPasskey?: boolean }): {
  statement: string;
  values: boolean[];
} {
  const set = [
    ...(flags.mfaEnabled === undefined ? [] : ['mfa_enabled = ?']),
    ...(flags.hasPasskey === undefined ? [] : ['has_passkey = ?']),
    'updated_at = ?',
  ];
  return {
    statement: `update users set ${set.join(', ')} where id = ?`,
    values: [flags.mfaEnabled, flags.hasPasskey].filter((value): value is boolean => value !== undefined),
  };
}

/** A user's values in column order (for INSERT_USER; UPDATE_USER takes `[...rest, id]`). */
export function userValues(user: User): [string, ...(string | boolean | Date)[]] {
  const p = user.toProps();
  return [
    p.id,
    p.email,
    p.firstName,
    p.lastName,
    p.role,
    p.passwordHash,
    p.emailVerified,
    p.mfaEnabled,
    p.hasPasskey,
    p.createdAt,
    p.updatedAt,
  ];
}

/** The user a raw row holds. */
export function userFromRaw(row: RawUserRow): User {
  return User.restore({
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    passwordHash: row.password_hash,
    emailVerified: row.email_verified === true || row.email_verified === 1,
    mfaEnabled: row.mfa_enabled === true || row.mfa_enabled === 1,
    hasPasskey: row.has_passkey === true || row.has_passkey === 1,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  });
}

/**
 * Locks the user's row to the end of the transaction `sql` runs in, by updating it in place (a row
 * lock on PostgreSQL; SQLite's transaction holds the database's write lock already): what changes
 * a user's ways in (passkeys, identities) takes it first, so counts after it are exact. False when
 * there is no such user.
 */
export async function lockUserRow(sql: SqlStatements, userId: string): Promise<boolean> {
  return (await sql.run('update users set has_passkey = has_passkey where id = ?', [userId])) === 1;
}
