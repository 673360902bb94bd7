import type { MikroORM } from '@mikro-orm/core';
import type { CallerLookup } from '../../../application/ports/CallerLookup.js';
import type { User } from '../../../domain/user/User.js';
import type { Database } from './database.js';
import type { SqlExecutor } from './sqlExecutor.js';
import { guarded } from './errors.js';
import { userColumns, userFromRaw, type RawUserRow } from './userRows.js';

const SQL =
  `select ${userColumns('u')} ` +
  'from sessions s join users u on u.id = s.user_id ' +
  'where s.id = ? and s.user_id = ? and s.ended_at is null and s.expires_at > ?';

/**
 * The caller of every authenticated request in one read: the user joined to its session, found
 * only while that session is active (one prepared statement on SQLite, no entity hydration). Read
 * on the primary, never a replica: a session ended, a user deleted or demoted elsewhere takes
 * effect at once, not a replica's lag later.
 */
export class SqlCallerLookup implements CallerLookup {
  private readonly orm: MikroORM;
  private readonly sql: SqlExecutor;

  constructor(database: Database) {
    this.orm = database.orm;
    this.sql = database.sql;
  }

  find(userId: string, sessionId: string, now: Date): Promise<User | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.primary.one<RawUserRow>(SQL, [sessionId, userId, now]);
      return row ? userFromRaw(row) : undefined;
    });
  }
}
