import type { Transaction, Transactions } from '../../../application/ports/Jobs.js';
import { withCommitHooks } from '../afterCommit.js';
import type { Database } from './database.js';
import type { SqlStatements } from './sqlExecutor.js';

/**
 * Transactions of the service's database (SQLite or PostgreSQL), through its SQL executor: the
 * `Transaction` a use case holds is the executor's transaction, which the SQL adapters join.
 */
export class SqlTransactions implements Transactions {
  constructor(private readonly database: Database) {}

  /** Commits when `work` resolves; then runs what the adapters asked to run after the commit (`afterCommit`). */
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return withCommitHooks((inner) => this.database.sql.transaction((tx) => inner(tx as unknown as Transaction)), work);
  }
}

/** The executor's transaction a `Transaction` from SqlTransactions is (for the SQL adapters that join it). */
export const sqlOf = (tx: Transaction): SqlStatements => tx as unknown as SqlStatements;
