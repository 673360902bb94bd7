import { join } from 'node:path';
import type { Database, DatabaseOptions } from '../../../../src/adapters/outbound/mikroorm/database.js';
import { connectDatabase } from '../../../support/database.js';
import { externalService } from '../../../support/env.js';
import { clearResourceTables } from '../../../support/resource/repository.js';

/** A database engine the SQL adapters' contract suites run on. */
export interface SqlTarget {
  readonly name: string;
  /** The `database.url`, or `undefined` when the engine is not available here (the suite is skipped). */
  url(): string | undefined;
  /** Whether the data outlives the connection, so a restart can be simulated by reconnecting. */
  readonly persistent: boolean;
}

/** SQLite in memory, SQLite in a file under `dir`, and PostgreSQL when `SVC_TEST_POSTGRES_URL` is set. */
export function sqlTargets(dir: string, fileName: string): SqlTarget[] {
  return [
    { name: 'SQLite in memory', url: () => 'sqlite::memory:', persistent: false },
    { name: 'SQLite file', url: () => `sqlite:${join(dir, fileName)}`, persistent: true },
    { name: 'PostgreSQL', url: () => externalService('SVC_TEST_POSTGRES_URL'), persistent: true },
  ];
}

/** Tables the outbound adapters write, children first (foreign keys). */
const TABLES = [
  'oidc_codes',
  'oidc_states',
  'identities',
  'passkey_challenges',
  'passkeys',
  'mfa_challenges',
  'recovery_codes',
  'totp_enrolments',
  'email_tokens',
  'sessions',
  'refresh_tokens',
  'users',
  'access_rules',
  'app_meta',
  'products',
] as const;

/**
 * One migrated database for a suite. PostgreSQL's test database is shared with other suites,
 * so every test starts by emptying the tables instead of relying on a fresh database.
 */
export class SqlDatabaseFixture {
  private current: Database | undefined;
  private url: string | undefined;

  constructor(readonly target: SqlTarget) {}

  /** Connects and migrates; returns why the suite is skipped when the engine is not available. */
  async open(options: Partial<DatabaseOptions> = {}): Promise<string | undefined> {
    this.url = this.target.url();
    if (!this.url) return `${this.target.name} needs SVC_TEST_POSTGRES_URL`;
    this.current = await SqlDatabaseFixture.connect(this.url, options);
    return undefined;
  }

  get db(): Database {
    if (!this.current) throw new Error(`${this.target.name} is not open`);
    return this.current;
  }

  /** Deletes every row the outbound adapters write. */
  async clear(): Promise<void> {
    const connection = this.db.orm.em.getConnection();
    for (const table of TABLES) await connection.execute(`delete from ${table}`);
  }

  /** Closes the connection and opens a new one on the same database, as a process restart would. */
  async restart(): Promise<Database> {
    if (!this.target.persistent || !this.url) throw new Error(`${this.target.name} does not survive a restart`);
    await this.db.close();
    this.current = await SqlDatabaseFixture.connect(this.url);
    return this.current;
  }

  async close(): Promise<void> {
    await this.current?.close().catch(() => undefined);
    this.current = undefined;
  }

  /** A second, independent connection to the same database (another instance of the service). */
  async another(): Promise<Database> {
    if (!this.url) throw new Error(`${this.target.name} is not open`);
    return SqlDatabaseFixture.connect(this.url);
  }

  private static async connect(url: string, options: Partial<DatabaseOptions> = {}): Promise<Database> {
    const db = await connectDatabase(url, options);
    await db.migrate();
    return db;
  }
}

/**
 * Empties every table the service writes in the database at `url` (migrating it first): the
 * PostgreSQL test database is shared, so a suite that starts a whole service starts from empty
 * tables, and the service seeds the shipped access rules instead of finding another suite's.
 */
export async function emptyTables(url: string): Promise<void> {
  const fixture = new SqlDatabaseFixture({ name: 'shared database', url: () => url, persistent: true });
  await fixture.open();
  try {
    // The declared resources' tables too: rows another suite left would hold values a unique field has.
    await clearResourceTables(fixture.db.orm);
  } finally {
    await fixture.close();
  }
}

/** What a store of per-user records claims beyond the promises of every call. */
export interface StoreClaims {
  /** Its data outlives the process (its subject can `restart`). */
  readonly survivesRestart: boolean;
  /** Deleting the user deletes the user's records (its subject can `deleteUser`): the SQL foreign keys. */
  readonly followsUser: boolean;
}

/** A contract suite's view of one implementation of a port. */
export interface ContractSubject<T> {
  /** Once before the suite; a string means "skip the suite, for this reason". */
  setUp(): Promise<string | undefined>;
  /** A fresh, empty implementation for one test. */
  fresh(): Promise<T>;
  tearDown(): Promise<void>;
}

/** Runs `body` against `subject`: one setUp/tearDown per suite, a fresh implementation per test. */
export function describeContract<T>(
  title: string,
  subject: ContractSubject<T>,
  body: (current: () => T) => void,
): void {
  describe(title, function () {
    let instance: T | undefined;

    before(async function () {
      const skipped = await subject.setUp();
      if (skipped !== undefined) {
        console.log(`      (skipped: ${skipped})`);
        this.skip();
      }
    });

    beforeEach(async () => {
      instance = await subject.fresh();
    });

    after(async () => {
      await subject.tearDown();
    });

    body(() => {
      if (instance === undefined) throw new Error('no implementation: beforeEach did not run');
      return instance;
    });
  });
}
