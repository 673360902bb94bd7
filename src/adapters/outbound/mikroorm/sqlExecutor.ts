import { createHash } from 'node:crypto';
import type { Knex } from '@mikro-orm/knex';
import type { Tracer } from '@opentelemetry/api';
import { inQuerySpan } from './queryTracing.js';
import { noteWrite, writes, type ReadRouting } from './readRouting.js';

/** A value a statement binds. Dates and booleans are converted for SQLite (epoch milliseconds, 1/0), as the ORM stores them. */
export type SqlParam = string | number | boolean | Date | null;

/** The engines Portico runs on. */
export type SqlDialect = 'sqlite' | 'postgresql';

/** Statements with `?` placeholders and their values sent apart, never written into the text. */
export interface SqlStatements {
  /** The first row, or `undefined`. */
  one<T>(sql: string, params?: readonly SqlParam[]): Promise<T | undefined>;
  /** Every row. */
  all<T>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
  /** A statement answering no rows; resolves with how many rows it changed. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
}

/**
 * The one piece of Portico that touches a driver connection (ADR 0026). Statements go out
 * prepared — once per connection on SQLite, as named server-side statements on PostgreSQL (unless
 * `database.prepared_statements` is false) — on connections of the ORM's pool, so they share its
 * size, its bound on getting a connection and (PostgreSQL) the driver's per-query bound.
 *
 * With read replicas (PostgreSQL), a `select` run by `one` or `all` outside a transaction goes where
 * {@link ReadRouting} says, on the pool the ORM keeps for that replica; `run`, transactions,
 * `select … for update` and statements that are no `select` (`update … returning`) go to the primary,
 * and a statement that writes is noted for the request running it ({@link noteWrite}).
 */
export interface SqlExecutor extends SqlStatements {
  readonly dialect: SqlDialect;
  /** The same statements, always on the primary: a read that must see the last write, the health check. */
  readonly primary: SqlStatements;
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when
   * it rejects. On SQLite it takes the write lock first (`begin immediate`), so a read-modify-write
   * never fails on upgrading its lock.
   */
  transaction<T>(work: (tx: SqlStatements) => Promise<T>): Promise<T>;
  /** Puts every statement from here on in a CLIENT span of `tracer` (inside traced requests). */
  traceWith(tracer: Tracer): void;
}

/** The part of the ORM's knex client the executor uses: its pool, through knex's typed `Client` methods. */
type Pool = Pick<Knex.Client, 'acquireConnection' | 'releaseConnection'>;

/** The replicas' pools (by index) and which of them a read goes to. */
interface ReadPools {
  readonly pools: readonly Pool[];
  readonly routing: ReadRouting;
}

/** A statement a replica may answer: a `select` that locks nothing (a hot standby refuses writes and row locks). */
const REPLICA_SAFE = /^\s*select\b(?![\s\S]*\bfor\s+(?:update|no\s+key\s+update|share|key\s+share)\b)/i;

/** The part of a libsql (better-sqlite3 API) statement used here. */
interface LibSqlStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number | bigint };
}
/** The part of a libsql connection used here. */
interface LibSqlConnection {
  prepare(sql: string): LibSqlStatement;
  exec(sql: string): unknown;
  readonly inTransaction: boolean;
}

/** The part of a node-postgres client used here: `query(config)`, pg's documented form. */
interface PgConnection {
  query(config: {
    name?: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * A statement's name on PostgreSQL is its text's digest: the same text has the same name in every
 * process, and two texts never share one, so a statement found on a server connection prepared by
 * another instance (behind a pooler) is always the same query — never a per-process counter.
 */
export const statementName = (text: string): string =>
  `portico_${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;

/** Past this many distinct texts new ones run unnamed (parsed every time), so the server's per-connection cache stays bounded. */
const MAX_NAMED_STATEMENTS = 500;

type Mode = 'one' | 'all' | 'run';

/** What the dialects share: connections from the pool, spans, and the three statement forms. */
abstract class PooledExecutor<C> implements SqlExecutor {
  abstract readonly dialect: SqlDialect;
  private tracer: { tracer: Tracer; system: string } | undefined;

  protected constructor(
    private readonly pool: Pool,
    private readonly reads?: ReadPools,
  ) {}

  get primary(): SqlStatements {
    return {
      one: <T>(sql: string, params: readonly SqlParam[] = []) =>
        this.withConnection((c) => this.on(c).one<T>(sql, params)),
      all: <T>(sql: string, params: readonly SqlParam[] = []) =>
        this.withConnection((c) => this.on(c).all<T>(sql, params)),
      run: (sql: string, params: readonly SqlParam[] = []) => this.run(sql, params),
    };
  }

  /**
   * Runs a read outside a transaction on the replica the routing picks, or on the primary. A read
   * that fails on a replica (down since its last probe, its connection lost, a conflict with
   * recovery) is run again on the primary, and that replica serves no more reads until a probe
   * finds it fit again.
   */
  private async read<T>(sql: string, use: (connection: C) => Promise<T>): Promise<T> {
    const replica = this.reads && REPLICA_SAFE.test(sql) ? this.reads.routing.replicaForRead() : undefined;
    const pool = replica === undefined ? undefined : this.reads?.pools[replica];
    if (replica === undefined || !pool) return this.withConnection(use);
    try {
      return await this.withConnection(use, pool);
    } catch {
      this.reads?.routing.failed(replica);
      return this.withConnection(use);
    }
  }

  traceWith(tracer: Tracer): void {
    this.tracer = { tracer, system: this.dialect };
  }

  protected abstract execute(connection: C, sql: string, params: readonly SqlParam[], mode: Mode): Promise<unknown>;
  protected abstract begin(connection: C): Promise<void>;
  protected abstract end(connection: C, commit: boolean): Promise<void>;

  /** Runs `use` on a connection of `pool` (the primary's by default), given back afterwards whatever happens. */
  protected async withConnection<T>(use: (connection: C) => Promise<T>, pool: Pool = this.pool): Promise<T> {
    const connection = (await pool.acquireConnection()) as C;
    try {
      return await use(connection);
    } finally {
      await pool.releaseConnection(connection);
    }
  }

  private statement(connection: C, sql: string, params: readonly SqlParam[], mode: Mode): Promise<unknown> {
    // With replicas, a request that writes is told so (read-your-writes: readRouting.ts).
    if (this.reads && writes(sql)) noteWrite();
    return inQuerySpan(this.tracer, sql, () => this.execute(connection, sql, params, mode));
  }

  private on(connection: C): SqlStatements {
    return {
      one: async <T>(sql: string, params: readonly SqlParam[] = []) =>
        (await this.statement(connection, sql, params, 'one')) as T | undefined,
      all: async <T>(sql: string, params: readonly SqlParam[] = []) =>
        (await this.statement(connection, sql, params, 'all')) as T[],
      run: async (sql: string, params: readonly SqlParam[] = []) =>
        (await this.statement(connection, sql, params, 'run')) as number,
    };
  }

  one<T>(sql: string, params: readonly SqlParam[] = []): Promise<T | undefined> {
    return this.read(sql, (c) => this.on(c).one<T>(sql, params));
  }

  all<T>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    return this.read(sql, (c) => this.on(c).all<T>(sql, params));
  }

  run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    return this.withConnection((c) => this.on(c).run(sql, params));
  }

  transaction<T>(work: (tx: SqlStatements) => Promise<T>): Promise<T> {
    return this.withConnection(async (connection) => {
      await this.begin(connection);
      let result: T;
      try {
        result = await work(this.on(connection));
      } catch (error) {
        // A connection that failed (or was ended past the bound) cannot roll back; the server
        // rolls back what it had when the session ends. The work's own error is the one to report.
        await this.end(connection, false).catch(() => undefined);
        throw error;
      }
      await this.end(connection, true);
      return result;
    });
  }
}

/**
 * SQLite through libsql. The ORM's pool holds the database's one connection (an in-memory
 * database exists only on it), so statements take it from that pool like the ORM does, and never
 * run inside a transaction the ORM has open on it. Each text is prepared once per connection; the
 * driver is synchronous.
 */
class LibSqlExecutor extends PooledExecutor<LibSqlConnection> {
  readonly dialect = 'sqlite' as const;
  /** Prepared statements per connection (the pool may replace its connection; its statements go with it). */
  private readonly prepared = new WeakMap<LibSqlConnection, Map<string, LibSqlStatement>>();

  constructor(pool: Pool) {
    super(pool);
  }

  private prepare(connection: LibSqlConnection, sql: string): LibSqlStatement {
    let statements = this.prepared.get(connection);
    if (!statements) {
      statements = new Map();
      this.prepared.set(connection, statements);
    }
    let statement = statements.get(sql);
    if (!statement) {
      statement = connection.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }

  protected execute(
    connection: LibSqlConnection,
    sql: string,
    params: readonly SqlParam[],
    mode: Mode,
  ): Promise<unknown> {
    const values = params.map(toSqlite);
    const statement = this.prepare(connection, sql);
    if (mode === 'one') return Promise.resolve(statement.get(...values));
    if (mode === 'all') return Promise.resolve(statement.all(...values));
    return Promise.resolve(Number(statement.run(...values).changes));
  }

  protected begin(connection: LibSqlConnection): Promise<void> {
    connection.exec('begin immediate');
    return Promise.resolve();
  }

  protected end(connection: LibSqlConnection, commit: boolean): Promise<void> {
    if (commit) connection.exec('commit');
    else if (connection.inTransaction) connection.exec('rollback');
    return Promise.resolve();
  }
}

/** A value as SQLite stores it where the ORM wrote it: times as epoch milliseconds, booleans as 1/0. */
function toSqlite(value: SqlParam): string | number | null {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * PostgreSQL through node-postgres, on the ORM's pooled clients (whose `query_timeout` bounds
 * every query, database.ts). With named statements the server parses and plans each text once per
 * connection, then only binds and runs it; without (`database.prepared_statements: false`, behind
 * a transaction pooler) every statement is parsed anew and nothing depends on a server session.
 */
class PgExecutor extends PooledExecutor<PgConnection> {
  readonly dialect = 'postgresql' as const;
  /** `?` → `$n` texts and their names, by the `?` text. */
  private readonly statements = new Map<string, { name: string | undefined; text: string }>();

  constructor(
    pool: Pool,
    private readonly named: boolean,
    reads?: ReadPools,
  ) {
    super(pool, reads);
  }

  private statementOf(sql: string): { name: string | undefined; text: string } {
    let statement = this.statements.get(sql);
    if (!statement) {
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      const name = this.named && this.statements.size < MAX_NAMED_STATEMENTS ? statementName(text) : undefined;
      statement = { name, text };
      this.statements.set(sql, statement);
    }
    return statement;
  }

  protected async execute(
    connection: PgConnection,
    sql: string,
    params: readonly SqlParam[],
    mode: Mode,
  ): Promise<unknown> {
    const { name, text } = this.statementOf(sql);
    const result = await connection.query({ ...(name ? { name } : {}), text, values: [...params] });
    if (mode === 'one') return result.rows[0];
    if (mode === 'all') return result.rows;
    return result.rowCount ?? 0;
  }

  protected async begin(connection: PgConnection): Promise<void> {
    await connection.query({ text: 'begin', values: [] });
  }

  protected async end(connection: PgConnection, commit: boolean): Promise<void> {
    await connection.query({ text: commit ? 'commit' : 'rollback', values: [] });
  }
}

/**
 * The executor for the ORM's knex instance: its dialect decides which. `replicas` (PostgreSQL): the
 * knex instances the ORM keeps for its read replicas, by index, and the routing of reads among them.
 */
export function sqlExecutor(
  knex: Knex,
  options: {
    readonly preparedStatements: boolean;
    readonly replicas?: { readonly knexes: readonly Knex[]; readonly routing: ReadRouting };
  },
): SqlExecutor {
  const pool = knex.client as Pool & { readonly dialect: string };
  if (pool.dialect !== 'postgresql') return new LibSqlExecutor(pool);
  const { replicas } = options;
  const reads =
    replicas && replicas.knexes.length > 0
      ? { pools: replicas.knexes.map((replica) => replica.client as Pool), routing: replicas.routing }
      : undefined;
  return new PgExecutor(pool, options.preparedStatements, reads);
}
