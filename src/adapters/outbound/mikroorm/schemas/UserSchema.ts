import { EntitySchema } from '@mikro-orm/core';

/** The `users` row. */
export interface UserRow {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  passwordHash: string;
  /** 0/1 as SQLite gives it back raw; a boolean elsewhere. */
  emailVerified?: boolean | number;
  /** Whether a second factor is on; 0/1 from SQLite, like `emailVerified`. */
  mfaEnabled?: boolean | number;
  /** Whether the user has a passkey; 0/1 from SQLite, like `emailVerified`. */
  hasPasskey?: boolean | number;
  createdAt: Date;
  updatedAt: Date;
}

export const UserSchema = new EntitySchema<UserRow>({
  name: 'UserRow',
  tableName: 'users',
  properties: {
    id: { type: 'string', primary: true, length: 36 },
    email: { type: 'string', length: 254, unique: true },
    firstName: { type: 'string', length: 100 },
    lastName: { type: 'string', length: 100 },
    role: { type: 'string', length: 50 },
    passwordHash: { type: 'string', length: 100 },
    emailVerified: { type: 'boolean', default: false },
    mfaEnabled: { type: 'boolean', default: false },
    hasPasskey: { type: 'boolean', default: false },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});
