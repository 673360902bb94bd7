import { expect } from 'chai';
import { InMemoryWritePositions } from '../../../../src/adapters/outbound/memory/InMemoryWritePositions.js';
import {
  noteWrite,
  readingFromPrimary,
  ReadRouting,
  writes,
  type ReplicaProbe,
} from '../../../../src/adapters/outbound/mikroorm/readRouting.js';
import { ReplicaReadYourWrites } from '../../../../src/adapters/outbound/mikroorm/ReplicaReadYourWrites.js';
import type { WritePositions } from '../../../../src/application/ports/WritePositions.js';

/** One replica that has replayed `replayed` of a primary at `primary`. */
function oneReplica(): { routing: ReadRouting; probe: ReplicaProbe & { primary: bigint; replayed: bigint } } {
  const probe = {
    primary: 100n,
    replayed: 100n,
    primaryPosition: () => Promise.resolve(probe.primary),
    replayedPosition: () => Promise.resolve(probe.replayed),
  };
  return { routing: new ReadRouting(1), probe };
}

/** What a request's reads were routed to: `replica` or `primary`. */
const whereReads = (routing: ReadRouting) => (): Promise<string> =>
  Promise.resolve(routing.replicaForRead() === undefined ? 'primary' : 'replica');

describe('read-your-writes (request context and positions)', () => {
  it('tells writes from reads by the statement', () => {
    for (const sql of ['select 1', ' SELECT * from users for update', 'begin', 'COMMIT', 'rollback', 'savepoint a'])
      expect(writes(sql), sql).to.equal(false);
    for (const sql of [
      'insert into t values (1)',
      'update t set a = 1 returning id',
      'delete from t',
      'with x as (delete from t returning id) select * from x',
    ])
      expect(writes(sql), sql).to.equal(true);
  });

  it('records the primary position after a request that wrote, for its writers, and reads from it on', async () => {
    const { routing, probe } = oneReplica();
    await routing.probe(probe);
    const positions = new InMemoryWritePositions();
    let asked = 0;
    const ryw = new ReplicaReadYourWrites({
      positions,
      primaryPosition: () => {
        asked += 1;
        return Promise.resolve(probe.primary);
      },
      ttlMs: 60_000,
    });
    // A client that wrote nothing lately reads on the replica; a request that only reads records nothing.
    expect(await ryw.serve({ clients: ['address:a'], changing: false }, whereReads(routing))).to.equal('replica');
    expect(asked).to.equal(0);

    // It writes: the primary moves on, the replica's replay is paused.
    probe.primary = 200n;
    await ryw.serve({ clients: ['address:a'], changing: false, writers: () => ['address:a', 'user:u'] }, () => {
      noteWrite();
      return Promise.resolve();
    });
    expect(asked).to.equal(1);
    expect(await positions.get(['user:u'])).to.equal(200n);
    await routing.probe(probe);

    // Its next requests, by address or by user, read on the primary; another client on the replica.
    expect(await ryw.serve({ clients: ['address:a'], changing: false }, whereReads(routing))).to.equal('primary');
    expect(await ryw.serve({ clients: ['address:b', 'user:u'], changing: false }, whereReads(routing))).to.equal(
      'primary',
    );
    expect(await ryw.serve({ clients: ['address:b'], changing: false }, whereReads(routing))).to.equal('replica');

    // Once the replica replayed the write, its reads go back there.
    probe.replayed = 200n;
    await routing.probe(probe);
    expect(await ryw.serve({ clients: ['address:a'], changing: false }, whereReads(routing))).to.equal('replica');
  });

  it('reads a changing request all on the primary without looking positions up, and records its write', async () => {
    const { routing, probe } = oneReplica();
    await routing.probe(probe);
    let lookups = 0;
    const memory = new InMemoryWritePositions();
    const positions: WritePositions = {
      get: (keys) => {
        lookups += 1;
        return memory.get(keys);
      },
      record: (keys, position, ttlMs) => memory.record(keys, position, ttlMs),
    };
    const ryw = new ReplicaReadYourWrites({ positions, primaryPosition: () => Promise.resolve(300n), ttlMs: 60_000 });
    const where = await ryw.serve({ clients: ['address:a'], changing: true }, async () => {
      const read = await whereReads(routing)();
      noteWrite();
      return read;
    });
    expect(where).to.equal('primary');
    expect(lookups).to.equal(0);
    expect(await memory.get(['address:a'])).to.equal(300n);
  });

  it('notes a write made inside readingFromPrimary, and a request that failed after writing', async () => {
    const positions = new InMemoryWritePositions();
    const ryw = new ReplicaReadYourWrites({ positions, primaryPosition: () => Promise.resolve(7n), ttlMs: 60_000 });
    await ryw.serve({ clients: ['address:a'], changing: false }, () =>
      readingFromPrimary(() => {
        noteWrite();
        return Promise.resolve();
      }),
    );
    expect(await positions.get(['address:a'])).to.equal(7n);
    let error: unknown;
    await ryw
      .serve({ clients: ['address:b'], changing: false }, () => {
        noteWrite();
        return Promise.reject(new Error('answered 409'));
      })
      .catch((e: unknown) => (error = e));
    expect((error as Error).message).to.equal('answered 409');
    expect(await positions.get(['address:b'])).to.equal(7n);
  });

  it('reads from the primary when the positions cannot be looked up (failing or too slow), and never fails the request', async () => {
    const { routing, probe } = oneReplica();
    await routing.probe(probe);
    const warnings: string[] = [];
    const failing: WritePositions = {
      get: () => Promise.reject(new Error('redis down')),
      record: () => Promise.reject(new Error('redis down')),
    };
    const ryw = new ReplicaReadYourWrites({
      positions: failing,
      primaryPosition: () => Promise.resolve(1n),
      ttlMs: 1000,
      warn: (message) => warnings.push(message),
    });
    expect(await ryw.serve({ clients: ['address:a'], changing: false }, whereReads(routing))).to.equal('primary');
    expect(
      await ryw.serve({ clients: ['address:a'], changing: false }, () => {
        noteWrite();
        return Promise.resolve('answered');
      }),
    ).to.equal('answered');
    expect(warnings[0]).to.match(/not looked up.*redis down/);

    const hanging: WritePositions = { get: () => new Promise(() => undefined), record: () => Promise.resolve() };
    const slow = new ReplicaReadYourWrites({
      positions: hanging,
      primaryPosition: () => Promise.resolve(1n),
      ttlMs: 1000,
      lookupTimeoutMs: 20,
    });
    expect(await slow.serve({ clients: ['address:a'], changing: false }, whereReads(routing))).to.equal('primary');
  });
});
