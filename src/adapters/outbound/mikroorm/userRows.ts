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

/** Every column of a user's row but its id, then the id (`userValues(user)` with the id moved last). */
export const UPDATE_USER = `update users set ${COLUMNS.slice(1)
  .map((column) => `${column} = ?`)
  .join(', ')} where id = ?`;

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
