import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import { offsetOf, type Page } from '../../../domain/shared/Page.js';
import { User } from '../../../domain/user/User.js';
import { EmailAlreadyRegisteredError, UserNotFoundError } from '../../../domain/user/UserErrors.js';
import {
  ADMIN_ROLE,
  type KeepingAnAdmin,
  type SecondFactorFlags,
  type UserListQuery,
  type UserRepository,
  type UserSortField,
} from '../../../domain/user/UserRepository.js';
import { MikroOrmStore } from './MikroOrmStore.js';
import { guarded } from './errors.js';
import {
  INSERT_USER,
  lockUserRow,
  setSecondFactors,
  UPDATE_USER,
  userColumns,
  userFromRaw,
  userUpdateValues,
  userValues,
  type RawUserRow,
} from './userRows.js';
import { sqlOf } from './SqlTransactions.js';
import type { Transaction } from '../../../domain/shared/Transaction.js';
import { inTransaction } from './transaction.js';
import { globContainsAnyCase, likeContains } from './like.js';
import { UserSchema, type UserRow } from './schemas/UserSchema.js';

const SORT_PROPERTY: Record<UserSortField, keyof UserRow> = {
  email: 'email',
  first_name: 'firstName',
  last_name: 'lastName',
  created_at: 'createdAt',
};

type Timestamp = Date | number | string;

const FIND_BY_ID = `select ${userColumns()} from users where id = ?`;

/**
 * The condition of a write that must keep an admin: the row is not an admin, or another row is.
 * One statement: SQLite runs a write statement under its database-wide write lock, so its check
 * and write cannot interleave with another writer's. PostgreSQL's READ COMMITTED does not give
 * that; see `keepingAnAdmin`.
 */
const ANOTHER_ADMIN_REMAINS =
  '(role <> ? or exists (select 1 from users other where other.role = ? and other.id <> ?))';

const toUser = (row: Omit<UserRow, 'createdAt' | 'updatedAt'> & { createdAt: Timestamp; updatedAt: Timestamp }): User =>
  User.restore({
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    role: row.role,
    passwordHash: row.passwordHash,
    // SQLite has no boolean: it answers 0 or 1.
    emailVerified: row.emailVerified === true || row.emailVerified === 1,
    mfaEnabled: row.mfaEnabled === true || row.mfaEnabled === 1,
    hasPasskey: row.hasPasskey === true || row.hasPasskey === 1,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  });

/** Users in SQLite or PostgreSQL through MikroORM; one EntityManager fork per operation. */
export class MikroOrmUserRepository extends MikroOrmStore implements UserRepository {
  /** One statement, on `within` when given (committed with it: the user and the job that mails it). */
  add(user: User, within?: Transaction): Promise<void> {
    return guarded(this.orm, async () => {
      await this.taken(() => (within ? sqlOf(within) : this.sql).run(INSERT_USER, userValues(user)));
    });
  }

  update(user: User, within?: Transaction): Promise<void> {
    return guarded(this.orm, async () => {
      const affected = await this.taken(() =>
        (within ? sqlOf(within) : this.sql).run(UPDATE_USER, userUpdateValues(user)),
      );
      if (affected === 0) throw new UserNotFoundError(user.id);
    });
  }

  setSecondFactors(id: string, flags: SecondFactorFlags, now: Date, within?: Transaction): Promise<void> {
    return guarded(this.orm, async () => {
      const { statement, values } = setSecondFactors(flags);
      const affected = await (within ? sqlOf(within) : this.sql).run(statement, [...values, now, id]);
      if (affected === 0) throw new UserNotFoundError(id);
    });
  }

  lock(id: string, within: Transaction): Promise<void> {
    return guarded(this.orm, async () => {
      if (!(await lockUserRow(sqlOf(within), id))) throw new UserNotFoundError(id);
    });
  }

  /** Runs a write of a user's row; another user holding its e-mail is EmailAlreadyRegisteredError. */
  private async taken<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      // The executor hands back the driver's own error; the ORM's driver names it.
      const converted = error instanceof Error ? this.orm.em.getDriver().convertException(error) : error;
      if (converted instanceof UniqueConstraintViolationException) throw new EmailAlreadyRegisteredError();
      throw error;
    }
  }

  /** The hot read (every authenticated request): one prepared statement, no entity hydration. */
  findById(id: string): Promise<User | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.sql.one<RawUserRow>(FIND_BY_ID, [id]);
      return row ? userFromRaw(row) : undefined;
    });
  }

  findByEmail(email: string): Promise<User | undefined> {
    return guarded(this.orm, async () => {
      const row = await this.em().findOne(UserSchema, { email }, { disableIdentityMap: true });
      return row ? toUser(row) : undefined;
    });
  }

  delete(id: string): Promise<boolean> {
    return guarded(this.orm, async () => (await this.em().nativeDelete(UserSchema, { id })) > 0);
  }

  updateKeepingAnAdmin(user: User): Promise<KeepingAnAdmin> {
    return this.keepingAnAdmin(user.id, async (em) => {
      // The second-factor flags are written only by setSecondFactors.
      const { id, mfaEnabled: _mfa, hasPasskey: _passkey, ...changes } = user.toProps();
      const qb = em.createQueryBuilder(UserSchema).update(changes).where({ id });
      if (user.role !== ADMIN_ROLE) qb.andWhere(ANOTHER_ADMIN_REMAINS, [ADMIN_ROLE, ADMIN_ROLE, id]);
      try {
        return (await qb.execute('run')).affectedRows;
      } catch (error) {
        // The query builder hands back the driver's own error; the ORM's methods convert it.
        const converted = error instanceof Error ? em.getDriver().convertException(error) : error;
        if (converted instanceof UniqueConstraintViolationException) throw new EmailAlreadyRegisteredError();
        throw converted;
      }
    });
  }

  deleteKeepingAnAdmin(id: string): Promise<KeepingAnAdmin> {
    return this.keepingAnAdmin(id, async (em) => {
      const qb = em
        .createQueryBuilder(UserSchema)
        .delete({ id })
        .andWhere(ANOTHER_ADMIN_REMAINS, [ADMIN_ROLE, ADMIN_ROLE, id]);
      return (await qb.execute('run')).affectedRows;
    });
  }

  /**
   * Runs `write` (a guarded statement answering the rows it changed) so that no two such writes
   * interleave their check and write. On PostgreSQL the write runs in a transaction that first
   * locks every admin row, in id order (no deadlock between two of them): a second guarded write
   * waits there, then re-reads the admins as committed by the first. No row changed: `not-found`
   * when the user is gone, else the guard refused (`last-admin`).
   */
  private keepingAnAdmin(id: string, write: (em: EntityManager) => Promise<number>): Promise<KeepingAnAdmin> {
    return guarded(this.orm, async () => {
      const em = this.em();
      const affected =
        this.sql.dialect === 'postgresql'
          ? await inTransaction(this.orm, async (tx) => {
              await tx.execute('select id from users where role = ? order by id for update', [ADMIN_ROLE], 'all');
              return write(tx);
            })
          : await write(em);
      if (affected > 0) return 'done';
      // On the primary, as the write was: a replica may not have the user yet.
      const found = await this.em().findOne(UserSchema, { id }, { disableIdentityMap: true, connectionType: 'write' });
      return found ? 'last-admin' : 'not-found';
    });
  }

  list(query: UserListQuery): Promise<Page<User>> {
    return guarded(this.orm, async () => {
      const em = this.em();
      const qb = em.createQueryBuilder(UserSchema, 'u');
      if (query.q) {
        if (this.sql.dialect === 'postgresql') {
          const pattern = likeContains(query.q);
          qb.where(
            `(lower(u.email) like ? escape '!' or lower(u.first_name) like ? escape '!' or lower(u.last_name) like ? escape '!')`,
            [pattern, pattern, pattern],
          );
        } else {
          // SQLite's lower() and like fold ASCII only: match every case form with glob instead.
          const pattern = globContainsAnyCase(query.q);
          qb.where('(u.email glob ? or u.first_name glob ? or u.last_name glob ?)', [pattern, pattern, pattern]);
        }
      }
      const total = await qb.clone().getCount();
      const rows = await qb
        .orderBy([{ [SORT_PROPERTY[query.sort]]: query.order }, { id: query.order }])
        .limit(query.perPage)
        .offset(offsetOf(query))
        .getResultList();
      return { items: rows.map(toUser), total, page: query.page, perPage: query.perPage };
    });
  }
}
