import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type EntitySchema, type Options } from '@mikro-orm/core';
import { LibSqlDriver } from '@mikro-orm/libsql';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { migrationsList } from './migrations/index.js';
import { AccessRuleSchema, AppMetaSchema } from './schemas/AccessRuleSchema.js';
import { ProductSchema } from './schemas/ProductSchema.js';
import { RefreshTokenSchema } from './schemas/RefreshTokenSchema.js';
import { UserSchema } from './schemas/UserSchema.js';

/** Which engine a `database.url` names, and how to reach it. */
export type DatabaseTarget =
  | { kind: 'sqlite'; file: string; display: string }
  | { kind: 'postgres'; url: string; display: string };

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

/** The entity schemas the ORM maps. */
export const entities: EntitySchema[] = [UserSchema, RefreshTokenSchema, AccessRuleSchema, AppMetaSchema, ProductSchema] as EntitySchema[];

function ormOptions(target: DatabaseTarget): Options {
  const common: Options = {
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
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
      pool: {
        // Every pooled connection (they are recycled), not just the first: foreign keys on for the
        // cascades; on a file, write-ahead logging with `synchronous = NORMAL` — a commit survives a
        // crash of the process, and no longer waits for an fsync of the whole journal (each insert
        // took ~2 ms of blocked event loop) — and a wait instead of SQLITE_BUSY between connections.
        afterCreate: (connection: { exec(sql: string): void }, done: (error: Error | null, connection: unknown) => void) => {
          try {
            connection.exec(
              memory
                ? 'pragma foreign_keys = on;'
                : 'pragma foreign_keys = on; pragma journal_mode = wal; pragma synchronous = normal; pragma busy_timeout = 5000;',
            );
            done(null, connection);
          } catch (error) {
            done(error as Error, connection);
          }
        },
      },
    };
  }
  return { ...common, driver: PostgreSqlDriver, clientUrl: target.url, pool: { min: 0, max: 10 } };
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
    readonly target: DatabaseTarget,
  ) {}

  /** Connects, or throws DatabaseConnectionError naming the (password-masked) target. */
  static async connect(url: string): Promise<Database> {
    const target = databaseTarget(url);
    let orm: MikroORM;
    try {
      orm = await MikroORM.init(ormOptions(target));
    } catch (error) {
      throw new DatabaseConnectionError(`cannot open ${target.display}: ${reason(error)}`);
    }
    const status = await orm.checkConnection();
    if (!status.ok) {
      await orm.close(true).catch(() => undefined);
      throw new DatabaseConnectionError(`cannot connect to ${target.display}: ${status.reason}`);
    }
    return new Database(orm, target);
  }

  /** Applies pending migrations; returns the names applied. */
  async migrate(): Promise<string[]> {
    const applied = await this.orm.getMigrator().up();
    return applied.map((m) => m.name);
  }

  /** Names of migrations not yet applied. */
  async pendingMigrations(): Promise<string[]> {
    return (await this.orm.getMigrator().getPendingMigrations()).map((m) => m.name);
  }

  /** One round trip (`select 1`). */
  async ping(): Promise<void> {
    await this.orm.em.getConnection().execute('select 1', [], 'get');
  }

  async close(): Promise<void> {
    await this.orm.close(true);
  }
}

function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]?.replace(/\/\/[^@/\s]*@/g, '//***@') ?? 'unknown error';
}
