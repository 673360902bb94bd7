import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { inQuerySpan } from './queryTracing.js';

/** The part of a libsql statement this module uses. */
export interface Statement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
}
/** A pooled libsql connection, as far as preparing statements goes. */
export interface LibSqlConnection {
  prepare(sql: string): Statement;
}

/** Prepared statements per libsql connection (connections are recycled by the pool). */
const prepared = new WeakMap<object, Map<string, Statement>>();

/** Values a statement binds: text, numbers, NULL, and on PostgreSQL dates and booleans (SQLite gets them converted). */
type Params = readonly (string | number | boolean | Date | null)[];

/** `sql` prepared once per pooled libsql connection (the pool recycles connections; their statements go with them). */
export function preparedOn(connection: LibSqlConnection, sql: string): Statement {
  let statements = prepared.get(connection);
  if (!statements) {
    statements = new Map();
    prepared.set(connection, statements);
  }
  let statement = statements.get(sql);
  if (!statement) {
    statement = connection.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}

/** Runs `sql` on SQLite through a statement prepared once per pooled connection; `undefined` elsewhere. */
async function onSqlite(
  orm: MikroORM,
  sql: string,
  run: (statement: Statement) => unknown,
): Promise<{ result: unknown } | undefined> {
  const client = (orm.em.getConnection() as AbstractSqlConnection).getKnex().client as {
    driverName: string;
    acquireConnection(): Promise<LibSqlConnection>;
    releaseConnection(connection: LibSqlConnection): Promise<void>;
  };
  if (client.driverName !== 'libsql') return undefined;
  return inQuerySpan(orm, sql, async () => {
    const raw = await client.acquireConnection();
    try {
      return { result: await run(preparedOn(raw, sql)) };
    } finally {
      await client.releaseConnection(raw);
    }
  });
}

/** The part of a pooled node-postgres client this module uses (its `query` is bounded: database.ts). */
interface PgConnection {
  query(
    config: { name?: string; text: string; values: unknown[] },
    callback: (error: Error | null, result: { rows: unknown[] }) => void,
  ): unknown;
}

/** Named statements by SQL text: PostgreSQL parses and plans each once per connection, then only binds and runs it. */
const pgStatements = new Map<string, { name: string | undefined; text: string }>();
/** Past this many distinct texts new ones run unnamed (parsed every time), so the server's per-connection cache stays bounded. */
const MAX_NAMED_STATEMENTS = 500;

/**
 * A statement's name is its text's digest: the same text has the same name in every process, and
 * two texts never share one, so a statement found on a server connection prepared by another
 * instance is always the same query.
 */
export const statementName = (text: string): string =>
  `portico_${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;

/** `sql` with `?` placeholders numbered `$1…$n` for PostgreSQL, and the name it is prepared under. */
function pgStatement(sql: string): { name: string | undefined; text: string } {
  let statement = pgStatements.get(sql);
  if (!statement) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    statement = { name: pgStatements.size < MAX_NAMED_STATEMENTS ? statementName(text) : undefined, text };
    pgStatements.set(sql, statement);
  }
  return statement;
}

/** ORMs whose PostgreSQL statements go unnamed (`database.prepared_statements: false`, behind a transaction pooler). */
const unnamed = new WeakSet<MikroORM>();

/** Turns named (server-side prepared) statements off for `orm`: nothing then depends on a server session. */
export function withoutNamedStatements(orm: MikroORM): void {
  unnamed.add(orm);
}

/**
 * Rows of a hot read on PostgreSQL, as a named prepared statement with its values sent apart: the
 * ORM's raw `execute` writes the values into the SQL text, so every request was a new statement
 * the server had to parse and plan (half of its time per authenticated GET). On a pooled
 * connection, under the same query bound and trace span as every query.
 */
async function onPostgres<T>(orm: MikroORM, sql: string, params: Params): Promise<T[]> {
  const client = (orm.em.getConnection() as AbstractSqlConnection).getKnex().client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(connection: PgConnection): Promise<void>;
  };
  const statement = pgStatement(sql);
  const { text } = statement;
  const name = unnamed.has(orm) ? undefined : statement.name;
  return inQuerySpan(orm, sql, async () => {
    const connection = await client.acquireConnection();
    try {
      return await new Promise<T[]>((resolve, reject) => {
        connection.query({ ...(name ? { name } : {}), text, values: [...params] }, (error, result) =>
          error ? reject(error) : resolve(result.rows as T[]),
        );
      });
    } finally {
      await client.releaseConnection(connection);
    }
  });
}

/**
 * One row of a hot, parameterised read. On SQLite (libsql) the statement is prepared once per
 * pooled connection and reused — the ORM path prepares every query anew, which was a fifth of an
 * authenticated GET's CPU. On PostgreSQL it is a named prepared statement (`onPostgres`).
 */
export async function readOne<T>(orm: MikroORM, sql: string, params: Params): Promise<T | undefined> {
  const sqlite = await onSqlite(orm, sql, (statement) => statement.get(...params));
  if (sqlite) return sqlite.result as T | undefined;
  return (await onPostgres<T>(orm, sql, params))[0];
}

/** Every row of a hot, parameterised read, prepared once per connection on SQLite like `readOne`. */
export async function readAll<T>(orm: MikroORM, sql: string, params: Params): Promise<T[]> {
  const sqlite = await onSqlite(orm, sql, (statement) => statement.all(...params));
  if (sqlite) return sqlite.result as T[];
  return onPostgres<T>(orm, sql, params);
}

/**
 * A hot, parameterised write (an insert) that answers nothing, prepared like the reads: once per
 * pooled connection on SQLite (the query builder's `raw` prepared it anew on every call), a named
 * statement on PostgreSQL. A constraint it breaks rejects with the driver's own error, as before.
 */
export async function writeOne(orm: MikroORM, sql: string, params: Params): Promise<void> {
  const sqlite = await onSqlite(orm, sql, (statement) => statement.run(...params));
  if (!sqlite) await onPostgres(orm, sql, params);
}

/** Whether the ORM talks to PostgreSQL (else SQLite). */
export function isPostgres(orm: MikroORM): boolean {
  return (orm.em.getConnection() as AbstractSqlConnection).getKnex().client.dialect === 'postgresql';
}

/**
 * Rows of a read on PostgreSQL whose only sensible plan walks an index in order: run with
 * `enable_sort` off for this one statement (`set local` in its own transaction). With default
 * costs the planner prefers sorting the whole table for a deep `offset`, which grows with the
 * table; walking the (sort column, id) index costs the offset plus the page.
 */
export async function readAllWalkingIndex<T>(orm: MikroORM, sql: string, params: Params): Promise<T[]> {
  const knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
  return knex.transaction(async (trx) => {
    await trx.raw('set local enable_sort = off');
    const result = (await trx.raw(sql, [...params])) as { rows: T[] };
    return result.rows;
  });
}

/** `date` as a raw query's parameter, the way the engine stores timestamps (SQLite: milliseconds since the epoch). */
export function timestampParam(orm: MikroORM, date: Date): string | number {
  return isPostgres(orm) ? date.toISOString() : date.getTime();
}
