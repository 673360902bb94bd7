import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';

/** The part of a libsql statement this module uses. */
interface Statement {
  get(...params: unknown[]): unknown;
}
interface LibSqlConnection {
  prepare(sql: string): Statement;
}

/** Prepared statements per libsql connection (connections are recycled by the pool). */
const prepared = new WeakMap<object, Map<string, Statement>>();

/**
 * One row of a hot, parameterised read. On SQLite (libsql) the statement is prepared once per
 * pooled connection and reused — the ORM path prepares every query anew, which was a fifth of an
 * authenticated GET's CPU. Elsewhere it is a plain raw query through the ORM's connection.
 */
export async function readOne<T>(orm: MikroORM, sql: string, params: readonly (string | number)[]): Promise<T | undefined> {
  const connection = orm.em.getConnection() as AbstractSqlConnection;
  const client = connection.getKnex().client as {
    driverName: string;
    acquireConnection(): Promise<LibSqlConnection>;
    releaseConnection(connection: LibSqlConnection): Promise<void>;
  };
  if (client.driverName !== 'libsql') return (await connection.execute(sql, [...params], 'get')) as T | undefined;
  const raw = await client.acquireConnection();
  try {
    let statements = prepared.get(raw);
    if (!statements) {
      statements = new Map();
      prepared.set(raw, statements);
    }
    let statement = statements.get(sql);
    if (!statement) {
      statement = raw.prepare(sql);
      statements.set(sql, statement);
    }
    return (await statement.get(...params)) as T | undefined;
  } finally {
    await client.releaseConnection(raw);
  }
}
