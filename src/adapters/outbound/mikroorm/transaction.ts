import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';

/**
 * Runs `work` in one database transaction, on an EntityManager fork whose every query joins it.
 * Commits when `work` resolves, rolls back when it rejects.
 *
 * Not `em.transactional`: that runs the callback inside an AsyncLocalStorage (MikroORM's
 * TransactionContext, and its flush's), and the first `run` of any AsyncLocalStorage turns on
 * Node's promise hooks for the rest of the process — one start-up transaction (seeding the access
 * rules) made every later promise of every request pay for context tracking
 * (test/e2e/noContextTracking.test.ts holds it off). A knex transaction set as the fork's transaction context does the
 * same work without it.
 */
export async function inTransaction<T>(orm: MikroORM, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const em = orm.em.fork() as EntityManager;
  return em
    .getConnection()
    .getKnex()
    .transaction(async (trx) => {
      em.setTransactionContext(trx);
      try {
        return await work(em);
      } finally {
        em.resetTransactionContext();
      }
    });
}
