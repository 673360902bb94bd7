import type { MikroORM } from '@mikro-orm/core';
import type { CallerLookup } from '../../../application/ports/CallerLookup.js';
import { User } from '../../../domain/user/User.js';
import { guarded } from './errors.js';
import { readOne, timestampParam } from './fastRead.js';

/** The joined row (timestamps: numbers on SQLite, Dates on PostgreSQL; the flag 0/1 on SQLite). */
interface RawCallerRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  password_hash: string;
  email_verified: boolean | number;
  created_at: Date | number | string;
  updated_at: Date | number | string;
}

const SQL =
  'select u.id, u.email, u.first_name, u.last_name, u.role, u.password_hash, u.email_verified, u.created_at, u.updated_at ' +
  'from sessions s join users u on u.id = s.user_id ' +
  'where s.id = ? and s.user_id = ? and s.ended_at is null and s.expires_at > ?';

/**
 * The caller of every authenticated request in one read: the user joined to its session, found
 * only while that session is active (one prepared statement on SQLite, no entity hydration).
 */
export class MikroOrmCallerLookup implements CallerLookup {
  constructor(private readonly orm: MikroORM) {}

  find(userId: string, sessionId: string, now: Date): Promise<User | undefined> {
    return guarded(this.orm, async () => {
      const row = await readOne<RawCallerRow>(this.orm, SQL, [sessionId, userId, timestampParam(this.orm, now)]);
      if (!row) return undefined;
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
    });
  }
}
