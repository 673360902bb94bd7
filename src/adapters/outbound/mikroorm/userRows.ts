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
  created_at: Date | number | string;
  updated_at: Date | number | string;
}

/** The columns of a RawUserRow, for a raw `select` (prefixed by `alias.` when given). */
export const userColumns = (alias?: string): string =>
  ['id', 'email', 'first_name', 'last_name', 'role', 'password_hash', 'email_verified', 'created_at', 'updated_at']
    .map((column) => (alias ? `${alias}.${column}` : column))
    .join(', ');

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
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  });
}
