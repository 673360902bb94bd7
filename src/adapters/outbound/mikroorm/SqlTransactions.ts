import type { Transaction, Transactions } from '../../../application/ports/Jobs.js';
import type { Database } from './database.js';
import type { SqlStatements } from './sqlExecutor.js';

/**
 * Transactions of the service's database (SQLite or PostgreSQL), through its SQL executor: the
 * `Transaction` a use case holds is the executor's transaction, which the SQL adapters join.
 */
export class SqlTransactions implements Transactions {
  constructor(private readonly database: Database) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.database.sql.transaction((tx) => work(tx as unknown as Transaction));
  }
}

/** The executor's transaction a `Transaction` from SqlTransactions is (for the SQL adapters that join it). */
export const sqlOf = (tx: Transaction): SqlStatements => tx as unknown as SqlStatements;
