import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import type { Database } from '../../../../src/adapters/outbound/mikroorm/database.js';
import {
  notingWrites,
  readingAtLeast,
  readingFromPrimary,
  walPosition,
} from '../../../../src/adapters/outbound/mikroorm/readRouting.js';
import { inTransaction } from '../../../../src/adapters/outbound/mikroorm/transaction.js';
import { AppMetaSchema } from '../../../../src/adapters/outbound/mikroorm/schemas/AccessRuleSchema.js';
import { connectDatabase } from '../../../support/database.js';
import { externalService } from '../../../support/env.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `url` with another database name: the replica's counters are read from `postgres`, so reading them adds nothing to the test database's. */
function onDatabase(url: string, name: string): string {
  const other = new URL(url);
  other.pathname = `/${name}`;
  return other.toString();
}

/**
 * Reads outside a transaction on a streaming replica (`database.replica_urls`), writes and
 * transactions on the primary. The replica's replay is paused to make its lag certain: a read
 * routed to it answers the row as it was, one on the primary the row just written.
 */
describe('read replicas (PostgreSQL)', function () {
  this.timeout(60_000);
  const primaryUrl = externalService('SVC_TEST_POSTGRES_URL');
  const replicaUrl = externalService('SVC_TEST_POSTGRES_REPLICA_URL');
  let db: Database;
  /** A session on the replica's `postgres` database: pauses and resumes replay, reads its counters. */
  let replica: pg.Client;
  /** A session on the primary (direct, past any pooler): its WAL position (the insert position: commits may be asynchronous). */
  let primary: pg.Client;
  const key = `replica-probe-${randomUUID()}`;
  const probeKey = key;

  before(async function () {
    if (!primaryUrl || !replicaUrl) {
      console.log('      (skipped: needs SVC_TEST_POSTGRES_URL and SVC_TEST_POSTGRES_REPLICA_URL)');
      this.skip();
    }
    db = await connectDatabase(primaryUrl, { replicaUrls: [replicaUrl] });
    await db.migrate();
    replica = new pg.Client({ connectionString: onDatabase(replicaUrl, 'postgres') });
    await replica.connect();
    primary = new pg.Client({ connectionString: process.env.SVC_TEST_POSTGRES_DIRECT_URL?.trim() || primaryUrl });
    await primary.connect();
  });

  after(async () => {
    await replica?.query('select pg_wal_replay_resume()').catch(() => undefined);
    await db?.sql.run('delete from app_meta where key = ?', [key]).catch(() => undefined);
    await db?.close();
    await replica?.end().catch(() => undefined);
    await primary?.end().catch(() => undefined);
  });

  afterEach(() => replica?.query('select pg_wal_replay_resume()'));

  /** Waits until the replica has replayed everything the primary has written so far. */
  async function caughtUp(): Promise<void> {
    const { rows } = await primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
    const target = rows[0]!.lsn;
    for (let i = 0; i < 200; i++) {
      const replayed = await replica.query<{ ok: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', [
        target,
      ]);
      if (replayed.rows[0]?.ok) return;
      await sleep(25);
    }
    throw new Error(`the replica did not replay up to ${target} in 5 s`);
  }

  /** Writes `old`, lets the replica replay it, pauses replay, then writes `fresh` on the primary only. */
  async function staleReplica(): Promise<void> {
    await db.sql.run('delete from app_meta where key = ?', [key]);
    await db.sql.run('insert into app_meta (key, value) values (?, ?)', [key, 'old']);
    await caughtUp();
    await replica.query('select pg_wal_replay_pause()');
    expect(await db.sql.run('update app_meta set value = ? where key = ?', ['fresh', key])).to.equal(1);
  }

  /** The replica's count of committed transactions in the test database (flushed by sessions that ended). */
  async function replicaCommits(): Promise<number> {
    await replica.query('select pg_stat_clear_snapshot()');
    const { rows } = await replica.query<{ n: string }>(
      'select xact_commit::text as n from pg_stat_database where datname = $1',
      [new URL(replicaUrl!).pathname.slice(1)],
    );
    return Number(rows[0]?.n ?? 0);
  }

  const valueOf = (row: { value: string } | null | undefined) => row?.value;

  it('the SQL executor: a select outside a transaction reads the replica; run, transactions, writes that answer rows and reads from the primary see the write', async () => {
    await staleReplica();
    const select = 'select value from app_meta where key = ?';
    expect(valueOf(await db.sql.one<{ value: string }>(select, [key]))).to.equal('old');
    expect((await db.sql.all<{ value: string }>(select, [key])).map((row) => row.value)).to.deep.equal(['old']);
    expect(valueOf(await db.sql.primary.one<{ value: string }>(select, [key]))).to.equal('fresh');
    expect(valueOf(await readingFromPrimary(() => db.sql.one<{ value: string }>(select, [key])))).to.equal('fresh');
    expect(valueOf(await db.sql.transaction((tx) => tx.one<{ value: string }>(select, [key])))).to.equal('fresh');
    expect(valueOf(await db.sql.one<{ value: string }>(`${select} for update`, [key]))).to.equal('fresh');
    const updated = await db.sql.one<{ value: string }>(
      'update app_meta set value = value || ? where key = ? returning value',
      ['!', key],
    );
    expect(valueOf(updated)).to.equal('fresh!');
    await replica.query('select pg_wal_replay_resume()');
    await caughtUp();
    expect(valueOf(await db.sql.one<{ value: string }>(select, [key]))).to.equal('fresh!');
  });

  it("the ORM: a find outside a transaction reads the replica; connectionType 'write', a transaction and reads from the primary see the write", async () => {
    await staleReplica();
    const find = (options: { connectionType?: 'read' | 'write' } = {}) =>
      db.orm.em.fork().findOne(AppMetaSchema, { key }, options);
    expect(valueOf(await find())).to.equal('old');
    expect(valueOf(await find({ connectionType: 'write' }))).to.equal('fresh');
    expect(valueOf(await readingFromPrimary(() => find()))).to.equal('fresh');
    expect(valueOf(await db.orm.em.fork().transactional((em) => em.findOne(AppMetaSchema, { key })))).to.equal('fresh');
    await replica.query('select pg_wal_replay_resume()');
    await caughtUp();
    expect(valueOf(await find())).to.equal('fresh');
  });

  it("reading at least from a write's WAL position: on the primary while the replica has not replayed it, on the replica once it has", async () => {
    const position = async () =>
      walPosition((await db.sql.primary.one<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn'))!.lsn);
    const select = 'select value from app_meta where key = ?';
    const read = (at: bigint) => readingAtLeast(at, () => db.sql.one<{ value: string }>(select, [key]));
    const findAt = (at: bigint) => readingAtLeast(at, () => db.orm.em.fork().findOne(AppMetaSchema, { key }));
    await staleReplica();
    const written = await position();
    expect(valueOf(await read(written))).to.equal('fresh');
    expect(valueOf(await findAt(written))).to.equal('fresh');
    expect(valueOf(await read(0n))).to.equal('old');
    await replica.query('select pg_wal_replay_resume()');
    await caughtUp();
    await sleep(1100); // the next probe (one a second) finds the replica at the write
    expect(db.reads.replicaForRead()).to.equal(0);
    expect(await readingAtLeast(written, () => Promise.resolve(db.reads.replicaForRead()))).to.equal(0);
    expect(valueOf(await read(written))).to.equal('fresh');
  });

  it('a replica further behind than replica_max_lag serves no reads until it catches up', async () => {
    const bounded = await connectDatabase(primaryUrl!, { replicaUrls: [replicaUrl!], replicaMaxLagMs: 300 });
    try {
      expect(bounded.reads.replicaForRead()).to.equal(0);
      await staleReplica();
      await sleep(700);
      expect(bounded.reads.state[0]).to.include({ up: true });
      expect(bounded.reads.state[0]!.lagMs).to.be.above(300);
      expect(bounded.reads.replicaForRead()).to.equal(undefined);
      const select = 'select value from app_meta where key = ?';
      expect(valueOf(await bounded.sql.one<{ value: string }>(select, [key]))).to.equal('fresh');
      expect(valueOf(await bounded.orm.em.fork().findOne(AppMetaSchema, { key }))).to.equal('fresh');
      await replica.query('select pg_wal_replay_resume()');
      await caughtUp();
      await sleep(300);
      expect(bounded.reads.state[0]).to.include({ up: true, lagMs: 0 });
      expect(bounded.reads.replicaForRead()).to.equal(0);
    } finally {
      await bounded.close();
    }
  });

  it('a replica that cannot be reached serves no reads: they go to the primary and none fails', async () => {
    const gone = new URL(replicaUrl!);
    gone.port = '1';
    const unreachable = await connectDatabase(primaryUrl!, { replicaUrls: [gone.toString()] });
    try {
      expect(unreachable.reads.state[0]).to.include({ up: false });
      await unreachable.sql.run('delete from app_meta where key = ?', [key]);
      await unreachable.sql.run('insert into app_meta (key, value) values (?, ?)', [key, 'here']);
      expect(
        valueOf(await unreachable.sql.one<{ value: string }>('select value from app_meta where key = ?', [key])),
      ).to.equal('here');
      expect(valueOf(await unreachable.orm.em.fork().findOne(AppMetaSchema, { key }))).to.equal('here');
    } finally {
      await unreachable.close();
    }
  });

  it('a read that fails on a replica its probe found up runs again on the primary, and that replica serves no more reads', async () => {
    // The replica's `postgres` database: it answers the probe, and has none of the service's tables.
    const failing = await connectDatabase(primaryUrl!, { replicaUrls: [onDatabase(replicaUrl!, 'postgres')] });
    try {
      await failing.sql.run('delete from app_meta where key = ?', [key]);
      await failing.sql.run('insert into app_meta (key, value) values (?, ?)', [key, 'here']);
      const select = 'select value from app_meta where key = ?';
      expect(failing.reads.state[0]).to.include({ up: true });
      expect(valueOf(await failing.sql.one<{ value: string }>(select, [key]))).to.equal('here');
      expect(failing.reads.state[0]).to.include({ up: false });
      await sleep(1100); // the next probe finds it up again
      expect(failing.reads.state[0]).to.include({ up: true });
      expect(valueOf(await failing.orm.em.fork().findOne(AppMetaSchema, { key }))).to.equal('here');
      expect(failing.reads.state[0]).to.include({ up: false });
    } finally {
      await failing.close();
    }
  });

  it("the replica's own counters show the reads reaching it, and only its probes when they read from the primary", async () => {
    // A database of its own for each half: closing it ends its sessions on the replica, which flushes their counters.
    const reads = async (onPrimary: boolean): Promise<number> => {
      const before = await replicaCommits();
      const other = await connectDatabase(primaryUrl!, { replicaUrls: [replicaUrl!] });
      try {
        const read = async () => {
          await other.sql.one('select value from app_meta where key = ?', [key]);
          await other.orm.em.fork().findOne(AppMetaSchema, { key });
        };
        for (let i = 0; i < 20; i++) await (onPrimary ? readingFromPrimary(read) : read());
      } finally {
        await other.close();
      }
      let after = before;
      for (let i = 0; i < 40 && after < before + 40; i++) {
        await sleep(50);
        after = await replicaCommits();
      }
      return after - before;
    };
    expect(await reads(false)).to.be.at.least(40);
    // Only the probes of how far it replayed (one at start, one a second) reach it then.
    expect(await reads(true)).to.be.below(10);
  });

  it('notes a request’s writes on the primary — the ORM’s, its transactions’, the SQL executor’s — and not its reads', async () => {
    const noted = async (work: () => Promise<unknown>): Promise<boolean> => {
      const note = { wrote: false };
      await notingWrites(note, 0n, work);
      return note.wrote;
    };
    const table = AppMetaSchema;
    const key = `${probeKey}-noted`;
    expect(await noted(() => db.orm.em.fork().find(table, { key }))).to.equal(false);
    expect(await noted(() => db.sql.one('select value from app_meta where key = ?', [key]))).to.equal(false);
    expect(
      await noted(() => db.sql.primary.all('select value from app_meta where key = ? for update', [key])),
    ).to.equal(false);
    expect(await noted(() => db.orm.em.fork().insert(table, { key, value: 'orm' }))).to.equal(true);
    expect(await noted(() => db.orm.em.fork().nativeUpdate(table, { key }, { value: 'orm again' }))).to.equal(true);
    expect(
      await noted(() => inTransaction(db.orm, (em) => em.nativeUpdate(table, { key }, { value: 'in a transaction' }))),
    ).to.equal(true);
    expect(await noted(() => db.sql.run('update app_meta set value = ? where key = ?', ['sql', key]))).to.equal(true);
    expect(
      await noted(() => db.sql.transaction((tx) => tx.run('update app_meta set value = ? where key = ?', ['tx', key]))),
    ).to.equal(true);
    // The primary's position covers the write just made.
    const { rows } = await primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
    expect((await db.primaryPosition()) >= walPosition(rows[0]!.lsn)).to.equal(true);
    await db.sql.run('delete from app_meta where key = ?', [key]);
  });
});
