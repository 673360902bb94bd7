import type { Identity, IdentityStore } from '../../../application/ports/IdentityStore.js';
import type { Transaction } from '../../../domain/shared/Transaction.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { sqlOf } from './SqlTransactions.js';
import { guarded } from './errors.js';
import type { SqlStatements } from './sqlExecutor.js';
import { lockUserRow } from './userRows.js';

/** An `identities` row as a raw read returns it (timestamps: numbers on SQLite, Dates on PostgreSQL). */
interface IdentityRow {
  id: string;
  user_id: string;
  issuer: string;
  subject: string;
  email: string | null;
  created_at: Date | number | string;
}

const COLUMNS = 'id, user_id, issuer, subject, email, created_at';

const toIdentity = (row: IdentityRow): Identity => ({
  id: row.id,
  userId: row.user_id,
  issuer: row.issuer,
  subject: row.subject,
  email: row.email,
  createdAt: new Date(row.created_at),
});

/**
 * Linked identities (`identities`), in statements written by hand. `add` is one insert that does
 * nothing on the unique (issuer, subject), so of concurrent links of one identity one wins. Rows
 * go with their user (foreign key).
 */
export class SqlIdentityStore extends MikroOrmStore implements IdentityStore {
  add(identity: Identity, within?: Transaction): Promise<boolean> {
    return guarded(this.orm, async () => {
      const added = await (within ? sqlOf(within) : this.sql).run(
        `insert into identities (${COLUMNS}) values (?, ?, ?, ?, ?, ?) on conflict (issuer, subject) do nothing`,
        [identity.id, identity.userId, identity.issuer, identity.subject, identity.email, identity.createdAt],
      );
      return added === 1;
    });
  }

  find(issuer: string, subject: string): Promise<Identity | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<IdentityRow>(
        `select ${COLUMNS} from identities where issuer = ? and subject = ?`,
        [issuer, subject],
      );
      return row ? toIdentity(row) : undefined;
    });
  }

  listOf(userId: string, within?: Transaction): Promise<Identity[]> {
    return guarded(this.orm, async () =>
      (
        await (within ? sqlOf(within) : this.sql).all<IdentityRow>(
          `select ${COLUMNS} from identities where user_id = ? order by created_at, id`,
          [userId],
        )
      ).map(toIdentity),
    );
  }

  countOf(userId: string, within?: Transaction): Promise<number> {
    return guarded(this.orm, async () => {
      const row = await (within ? sqlOf(within) : this.sql).one<{ n: number | string }>(
        'select count(*) as n from identities where user_id = ?',
        [userId],
      );
      return Number(row?.n ?? 0);
    });
  }

  remove(userId: string, id: string, within?: Transaction): Promise<boolean> {
    const work = async (sql: SqlStatements): Promise<boolean> => {
      await lockUserRow(sql, userId);
      return (await sql.run('delete from identities where user_id = ? and id = ?', [userId, id])) === 1;
    };
    return guarded(this.orm, () => (within ? work(sqlOf(within)) : this.sql.transaction(work)));
  }
}
