import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type ConnectionType, type EntitySchema, type MigrationObject, type Options } from '@mikro-orm/core';
import { LibSqlDriver } from '@mikro-orm/libsql';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver, type PostgreSqlConnection } from '@mikro-orm/postgresql';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import type { Tracer } from '@opentelemetry/api';
import { withMigrationLock } from './migrationLock.js';
import { traceQueries } from './queryTracing.js';
import { noteWrite, ReadRouting, readingFromPrimary, walPosition, writes, type ReplicaProbe } from './readRouting.js';
import { sqlExecutor, type SqlExecutor } from './sqlExecutor.js';
import { guarded, onDatabaseFailure, storageFullOf, storageWritable, type DatabaseFailure } from './errors.js';

/** Which engine a `database.url` names, and how to reach it. */
export type DatabaseTarget =
  { kind: 'sqlite'; file: string; display: string } | { kind: 'postgres'; url: string; display: string };

/** `sqlite:<file>` / `sqlite::memory:` / `postgres://…`; the display form never shows a password. */
export function databaseTarget(url: string): DatabaseTarget {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    return { kind: 'sqlite', file, display: file === ':memory:' ? 'sqlite (in memory)' : `sqlite ${file}` };
  }
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return { kind: 'postgres', url, display: `postgresql ${parsed.host}${parsed.pathname}` };
}

export interface DatabaseOptions {
  /** Bound on one database call (and on getting a connection); past it the call fails and its connection is discarded. */
  readonly queryTimeoutMs: number;
  /** Where the driver's own warnings go (a connection lost, …); by default nowhere. */
  readonly warn?: (message: string) => void;
  /** The entity schemas the ORM maps (every feature module's). */
  readonly entities: readonly EntitySchema[];
  /**
   * Every migration, in the order they apply (`discoverMigrations`: every migration file, by name).
   * Each not yet applied is applied, also one that sorts before migrations applied already.
   */
  readonly migrations: readonly MigrationObject[];
  /**
   * PostgreSQL only: where migrations take their lock, a direct (or session-pooled) connection —
   * `database.migration_url`; `database.url` when absent.
   */
  readonly migrationUrl?: string;
  /**
   * PostgreSQL only (`database.prepared_statements`, default true): hot queries as named prepared
   * statements, and the server-side statement bound set on each connection. False behind a
   * transaction pooler, where a server connection is another client's at the next transaction.
   */
  readonly preparedStatements?: boolean;
  /**
   * PostgreSQL only (`database.replica_urls`): read replicas. Reads outside a transaction — the
   * ORM's and the SQL executor's `select`s — go to one of them ({@link ReadRouting}); writes and
   * transactions, and reads asking for it (`connectionType: 'write'`), to `database.url`.
   */
  readonly replicaUrls?: readonly string[];
  /** A replica further behind than this serves no reads (`database.replica_max_lag`); unbounded when absent. */
  readonly replicaMaxLagMs?: number;
}

/** How often the replicas are probed: a quarter of the lag allowed, within 100 ms … 1 s. */
const probeIntervalMs = (maxLagMs: number): number => Math.min(1000, Math.max(100, maxLagMs / 4));

/**
 * How long after a write every replica fit to read (no further behind than `maxLagMs`, as probed)
 * has replayed it: the lag allowed and two probes (one to sample the write's position, one to find
 * the replica's); an hour at most. Read-your-writes keeps a client's position this long.
 */
export const replayedWithinMs = (maxLagMs: number): number =>
  Math.min(3_600_000, maxLagMs + 2 * probeIntervalMs(maxLagMs));

/** Positions read on the ORM's own connections: the primary's, and each replica's (whose pools the driver and the executor share). */
function replicaProbe(orm: MikroORM): ReplicaProbe {
  const driver = orm.em.getDriver() as unknown as { readonly replicas?: readonly AbstractSqlConnection[] };
  const position = async (connection: AbstractSqlConnection | undefined, sql: string): Promise<bigint> => {
    if (!connection) throw new Error('no such replica');
    const row: { lsn?: string | null } | undefined = await connection.execute<{ lsn: string | null }>(sql, [], 'get');
    if (!row?.lsn) throw new Error('not a replica');
    return walPosition(row.lsn);
  };
  return {
    primaryPosition: () =>
      position(
        orm.em.getConnection('write') as AbstractSqlConnection,
        'select pg_current_wal_insert_lsn()::text as lsn',
      ),
    replayedPosition: (index) => position(driver.replicas?.[index], 'select pg_last_wal_replay_lsn()::text as lsn'),
  };
}

/**
 * MikroORM's PostgreSQL driver with reads routed by {@link ReadRouting} rather than to a random
 * replica: a read the routing keeps on the primary (there is no replica fit, or the caller reads
 * from the primary) takes the primary's connection.
 */
function routedPostgreSqlDriver(routing: ReadRouting): typeof PostgreSqlDriver {
  return class RoutedPostgreSqlDriver extends PostgreSqlDriver {
    /** Each replica's connection, its statements run again on the primary when they fail there (see {@link onPrimaryWhenFailing}). */
    private readonly reading = new Map<number, PostgreSqlConnection>();

    override getConnection(type: ConnectionType = 'write'): PostgreSqlConnection {
      if (type === 'write') return this.connection;
      const replica = routing.replicaForRead();
      const connection = replica === undefined ? undefined : this.replicas[replica];
      if (replica === undefined || !connection) return this.connection;
      let reading = this.reading.get(replica);
      if (!reading) {
        reading = onPrimaryWhenFailing(connection, this.connection, () => routing.failed(replica));
        this.reading.set(replica, reading);
      }
      return reading;
    }
  };
}

/**
 * `replica`, whose `execute` runs a statement that fails there again on `primary` (the ORM reads
 * only outside transactions there) after telling `failed`: a replica down since its last probe
 * fails no request.
 */
function onPrimaryWhenFailing(
  replica: PostgreSqlConnection,
  primary: PostgreSqlConnection,
  failed: () => void,
): PostgreSqlConnection {
  return new Proxy(replica, {
    get(target, property, receiver) {
      if (property !== 'execute') return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<PostgreSqlConnection['execute']>) => {
        try {
          return await target.execute(...args);
        } catch {
          failed();
          return primary.execute(...args);
        }
      };
    },
  });
}

/**
 * Tells every request (readRouting.ts's {@link noteWrite}) that a statement the ORM runs on the
 * primary writes, from knex's `query` event — emitted, as the request's own code, by the primary's
 * knex and the transactions it opens (the replicas have knex instances of their own).
 */
function noteOrmWrites(orm: MikroORM): void {
  const knex = (orm.em.getConnection('write') as AbstractSqlConnection).getKnex();
  knex.on('query', (query: { sql?: string }) => {
    if (query.sql !== undefined && writes(query.sql)) noteWrite();
  });
}

/** The knex instances of the ORM's replica connections, by index (none on SQLite or without replicas). */
function replicaKnexes(orm: MikroORM, count: number): Knex[] {
  const driver = orm.em.getDriver() as unknown as { readonly replicas?: readonly AbstractSqlConnection[] };
  return (driver.replicas ?? []).slice(0, count).map((replica) => replica.getKnex());
}

/** knex's logger, sent to `warn` instead of the console. */
function driverLog(options: DatabaseOptions): Record<string, (message: unknown) => void> {
  const warn = (message: unknown) => options.warn?.(String(message));
  return { warn, error: warn, deprecate: () => undefined, debug: () => undefined };
}

function ormOptions(target: DatabaseTarget, options: DatabaseOptions, routing: ReadRouting): Options {
  const common: Options = {
    entities: [...options.entities],
    extensions: [Migrator],
    migrations: {
      migrationsList: [...options.migrations],
      transactional: true,
      // PostgreSQL applies a batch all or nothing. SQLite applies each migration in a transaction
      // of its own: a table rebuild (migrations/tableChangeMigration.ts) must run outside one.
      allOrNothing: target.kind !== 'sqlite',
      snapshot: false,
      silent: true,
    },
    debug: process.env.PORTICO_DEBUG_SQL === '1',
    allowGlobalContext: false,
    ensureDatabase: false,
  };
  if (target.kind === 'sqlite') {
    const memory = target.file === ':memory:';
    if (!memory) mkdirSync(dirname(target.file), { recursive: true });
    return {
      ...common,
      driver: LibSqlDriver,
      dbName: target.file,
      driverOptions: { log: driverLog(options) },
      pool: {
        // Every pooled connection (they are recycled), not just the first: foreign keys on for the
        // cascades; on a file, write-ahead logging with `synchronous = NORMAL` — a commit survives a
        // crash of the process without waiting for an fsync of the whole journal, which blocks the
        // event loop (the driver is synchronous) — and a wait instead of SQLITE_BUSY between
        // connections, bounded by the query timeout.
        afterCreate: (
          connection: { exec(sql: string): void },
          done: (error: Error | null, connection: unknown) => void,
        ) => {
          try {
            connection.exec(
              memory
                ? 'pragma foreign_keys = on;'
                : `pragma foreign_keys = on; pragma journal_mode = wal; pragma synchronous = normal; pragma busy_timeout = ${options.queryTimeoutMs};`,
            );
            done(null, connection);
          } catch (error) {
            done(error as Error, connection);
          }
        },
      },
    };
  }
  const timeout = options.queryTimeoutMs;
  return {
    ...common,
    driver: routedPostgreSqlDriver(routing),
    clientUrl: target.url,
    // Each replica gets a pool of its own, with the primary's size, bounds and session settings.
    replicas: (options.replicaUrls ?? []).map((clientUrl, i) => ({ name: `replica${i + 1}`, clientUrl })),
    pool: {
      min: 0,
      max: 10,
      // The server cancels a statement past the bound too (its locks are released). Set on the
      // session, never sent as a start-up parameter, which a pooler refuses; behind a transaction
      // pooler (no session of our own) the client-side bound alone applies.
      afterCreate: (client: PgSession, done: (error: Error | null, client: unknown) => void) => {
        if (options.preparedStatements === false) done(null, client);
        else client.query(`set statement_timeout = ${Math.trunc(timeout)}`, (error) => done(error, client));
      },
    },
    driverOptions: {
      log: driverLog(options),
      // A pool with no connection free fails within the bound (knex's KnexTimeoutError).
      acquireConnectionTimeout: timeout,
      connection: {
        // node-postgres's own bounds: on making a connection, and on every query ("Query read
        // timeout": a frozen server answers nothing, so no cancel request could help; the pool
        // gets the connection back, and its next query waits behind the stuck one, bounded alike,
        // until the server answers or the socket fails). Keep-alive finds a peer that vanished.
        connectionTimeoutMillis: timeout,
        query_timeout: timeout,
        keepAlive: true,
      },
    },
  };
}

/** The part of a new node-postgres client the pool's `afterCreate` uses. */
interface PgSession {
  query(text: string, callback: (error: Error | null) => void): void;
}

/** Raised when the database cannot be reached; its message is safe to print. */
export class DatabaseConnectionError extends Error {}

/**
 * The service's database: a MikroORM instance for `database.url`, its migrations, and a ping
 * for the health check.
 */
export class Database {
  private constructor(
    readonly orm: MikroORM,
    /** Every statement Portico writes itself goes through this (ADR 0026). */
    readonly sql: SqlExecutor,
    readonly target: DatabaseTarget,
    private readonly migrationUrl: string | undefined,
    /** Where reads outside a transaction go, and what the last probe found of each replica. */
    readonly reads: ReadRouting,
  ) {}

  /**
   * The primary's WAL position now (PostgreSQL): every write committed so far lies at or before it,
   * and a replica that has replayed up to it reads them all.
   */
  async primaryPosition(): Promise<bigint> {
    const row = await this.sql.primary.one<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
    if (!row) throw new Error('no WAL position');
    return walPosition(row.lsn);
  }

  /**
   * Runs `work` with its reads on the primary ({@link readingFromPrimary}) when there are replicas;
   * without, it runs as it is — no async context is made for nothing (tracing off keeps none).
   */
  readonly fromPrimary = <T>(work: () => Promise<T>): Promise<T> =>
    this.reads.replicas === 0 ? work() : readingFromPrimary(work);

  /** The timer probing the replicas (none without replicas). */
  private probing: NodeJS.Timeout | undefined;

  /** Connects, or throws DatabaseConnectionError naming the (password-masked) target. */
  static async connect(url: string, options: DatabaseOptions): Promise<Database> {
    const target = databaseTarget(url);
    const replicaUrls = target.kind === 'postgres' ? (options.replicaUrls ?? []) : [];
    const routing = new ReadRouting(replicaUrls.length, options.replicaMaxLagMs);
    let orm: MikroORM;
    try {
      orm = await MikroORM.init(ormOptions(target, { ...options, replicaUrls }, routing));
    } catch (error) {
      throw new DatabaseConnectionError(`cannot open ${target.display}: ${reason(error)}`);
    }
    const status = await orm.checkConnection();
    if (!status.ok) {
      await orm.close(true).catch(() => undefined);
      throw new DatabaseConnectionError(`cannot connect to ${target.display}: ${status.reason}`);
    }
    const knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
    const sql = sqlExecutor(knex, {
      preparedStatements: options.preparedStatements !== false,
      replicas: { knexes: replicaKnexes(orm, replicaUrls.length), routing },
    });
    const database = new Database(orm, sql, target, options.migrationUrl, routing);
    if (replicaUrls.length > 0) {
      noteOrmWrites(orm);
      // The first probe before any read: a replica serves none until one found it up.
      const probe = replicaProbe(orm);
      await routing.probe(probe);
      database.probing = setInterval(
        () => void routing.probe(probe),
        probeIntervalMs(options.replicaMaxLagMs ?? Number.POSITIVE_INFINITY),
      );
      database.probing.unref();
    }
    return database;
  }

  /**
   * Applies pending migrations; returns the names applied. On PostgreSQL they run under an
   * advisory lock held by a session of their own (see {@link withMigrationLock}): of several
   * instances started at once, one migrates and the others wait, then find nothing to do. SQLite
   * serves one instance, and its writes are serialised by the file itself.
   */
  async migrate(): Promise<string[]> {
    const up = async () => (await this.orm.getMigrator().up()).map((m) => m.name);
    if (this.target.kind !== 'postgres') return up();
    return withMigrationLock(this.migrationUrl ?? this.target.url, up);
  }

  /** Names of migrations not yet applied. */
  async pendingMigrations(): Promise<string[]> {
    return (await this.orm.getMigrator().getPendingMigrations()).map((m) => m.name);
  }

  /**
   * One round trip to the primary (`select 1`). After a write failed for lack of storage, also one small write,
   * so the health check stays `down` (`storage is full`) until writes work again, and comes back
   * by itself once space is freed.
   */
  async ping(): Promise<void> {
    await this.sql.primary.one('select 1');
    if (!storageFullOf(this.orm)) return;
    await guarded(this.orm, () =>
      this.sql.run(
        `insert into app_meta (key, value) values ('storage_probe', ?) on conflict (key) do update set value = excluded.value`,
        [new Date().toISOString()],
      ),
    );
    storageWritable(this.orm);
  }

  /** A CLIENT span per query from here on, inside traced requests: the ORM's and the executor's. */
  traceQueries(tracer: Tracer): void {
    traceQueries(this.orm, tracer);
    this.sql.traceWith(tracer);
  }

  /** Tells `listener` the kind of every failed operation of the repositories on this database. */
  onFailure(listener: (kind: DatabaseFailure) => void): void {
    onDatabaseFailure(this.orm, listener);
  }

  async close(): Promise<void> {
    clearInterval(this.probing);
    await this.orm.close(true);
  }
}

function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]?.replace(/\/\/[^@/\s]*@/g, '//***@') ?? 'unknown error';
}
