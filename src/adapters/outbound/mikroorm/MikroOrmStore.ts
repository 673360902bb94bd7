import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import type { Database } from './database.js';
import type { SqlExecutor } from './sqlExecutor.js';

/**
 * What every store over the database shares: the ORM (for `guarded` and transactions), the SQL
 * executor (for the statements written by hand) and one EntityManager fork per operation.
 */
export abstract class MikroOrmStore {
  protected readonly orm: MikroORM;
  protected readonly sql: SqlExecutor;

  constructor(database: Database) {
    this.orm = database.orm;
    this.sql = database.sql;
  }

  /** A fresh fork for one operation: nothing it loads outlives the operation. */
  protected em(): EntityManager {
    return this.orm.em.fork() as EntityManager;
  }
}
