import type { MikroORM } from '@mikro-orm/core';
import type { CallerLookup } from '../../../application/ports/CallerLookup.js';
import type { User } from '../../../domain/user/User.js';
import { guarded } from './errors.js';
import { readOne, timestampParam } from './fastRead.js';
import { userColumns, userFromRaw, type RawUserRow } from './userRows.js';

const SQL =
  `select ${userColumns('u')} ` +
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
      const row = await readOne<RawUserRow>(this.orm, SQL, [sessionId, userId, timestampParam(this.orm, now)]);
      return row ? userFromRaw(row) : undefined;
    });
  }
}
