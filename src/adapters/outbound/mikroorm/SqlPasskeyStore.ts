import type { Passkey, PasskeyStore } from '../../../application/ports/PasskeyStore.js';
import type { Transaction } from '../../../domain/shared/Transaction.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { sqlOf } from './SqlTransactions.js';
import { guarded } from './errors.js';
import type { SqlStatements } from './sqlExecutor.js';
import { lockUserRow } from './userRows.js';

/** A `passkeys` row as a raw read returns it (timestamps: numbers on SQLite, Dates on PostgreSQL; bigint as text on PostgreSQL). */
interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: number | string;
  transports: string;
  device_type: string;
  backed_up: boolean | number;
  name: string;
  created_at: Date | number | string;
  last_used_at: Date | number | string | null;
}

const COLUMNS =
  'id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, name, created_at, last_used_at';

const toPasskey = (row: PasskeyRow): Passkey => ({
  id: row.id,
  userId: row.user_id,
  credentialId: row.credential_id,
  publicKey: row.public_key,
  counter: Number(row.counter),
  transports: row.transports.split(' ').filter((transport) => transport !== ''),
  deviceType: row.device_type === 'multiDevice' ? 'multiDevice' : 'singleDevice',
  backedUp: row.backed_up === true || row.backed_up === 1,
  name: row.name,
  createdAt: new Date(row.created_at),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
});

/**
 * Passkeys (`passkeys`), in statements written by hand. `add` and `remove` first write the user's
 * row in place (`has_passkey = has_passkey`): a row lock on PostgreSQL, held to the end of the
 * transaction, so that counts taken after it see every other committed change of the user's
 * passkeys (SQLite's transactions take the database's write lock at their start). `recordUse` is
 * one conditional UPDATE. Rows go with their user (foreign key).
 */
export class SqlPasskeyStore extends MikroOrmStore implements PasskeyStore {
  add(passkey: Passkey, within?: Transaction): Promise<boolean> {
    const work = async (sql: SqlStatements): Promise<boolean> => {
      await lockUserRow(sql, passkey.userId);
      const added = await sql.run(
        `insert into passkeys (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (credential_id) do nothing`,
        [
          passkey.id,
          passkey.userId,
          passkey.credentialId,
          passkey.publicKey,
          passkey.counter,
          passkey.transports.join(' '),
          passkey.deviceType,
          passkey.backedUp,
          passkey.name,
          passkey.createdAt,
          passkey.lastUsedAt,
        ],
      );
      return added === 1;
    };
    return guarded(this.orm, () => (within ? work(sqlOf(within)) : this.sql.transaction(work)));
  }

  listOf(userId: string, within?: Transaction): Promise<Passkey[]> {
    return guarded(this.orm, async () =>
      (
        await (within ? sqlOf(within) : this.sql).all<PasskeyRow>(
          `select ${COLUMNS} from passkeys where user_id = ? order by created_at, id`,
          [userId],
        )
      ).map(toPasskey),
    );
  }

  findByCredentialId(credentialId: string): Promise<Passkey | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<PasskeyRow>(`select ${COLUMNS} from passkeys where credential_id = ?`, [
        credentialId,
      ]);
      return row ? toPasskey(row) : undefined;
    });
  }

  countOf(userId: string, within?: Transaction): Promise<number> {
    return guarded(this.orm, async () => {
      const row = await (within ? sqlOf(within) : this.sql).one<{ n: number | string }>(
        'select count(*) as n from passkeys where user_id = ?',
        [userId],
      );
      return Number(row?.n ?? 0);
    });
  }

  remove(userId: string, id: string, within?: Transaction): Promise<boolean> {
    const work = async (sql: SqlStatements): Promise<boolean> => {
      await lockUserRow(sql, userId);
      return (await sql.run('delete from passkeys where id = ? and user_id = ?', [id, userId])) === 1;
    };
    return guarded(this.orm, () => (within ? work(sqlOf(within)) : this.sql.transaction(work)));
  }

  recordUse(id: string, counter: number, backedUp: boolean, now: Date): Promise<boolean> {
    const advances = counter === 0 ? 'counter = 0' : 'counter < ?';
    return guarded(
      this.orm,
      async () =>
        (await this.sql.run(
          `update passkeys set counter = ?, backed_up = ?, last_used_at = ? where id = ? and ${advances}`,
          counter === 0 ? [counter, backedUp, now, id] : [counter, backedUp, now, id, counter],
        )) === 1,
    );
  }
}
