import { expect } from 'chai';
import {
  ReadRouting,
  readingAtLeast,
  readingFromPrimary,
  walPosition,
  type ReplicaProbe,
} from '../../../../src/adapters/outbound/mikroorm/readRouting.js';

/** A probe answering the positions set on it; a replica set to `undefined` does not answer. */
function fakeProbe(): ReplicaProbe & { primary: bigint; replicas: (bigint | undefined)[] } {
  const probe = {
    primary: 0n,
    replicas: [] as (bigint | undefined)[],
    primaryPosition: () => Promise.resolve(probe.primary),
    replayedPosition: (index: number) => {
      const replayed = probe.replicas[index];
      return replayed === undefined ? Promise.reject(new Error('down')) : Promise.resolve(replayed);
    },
  };
  return probe;
}

describe('ReadRouting', () => {
  it('reads WAL positions as PostgreSQL orders them', () => {
    expect(walPosition('0/16B3748')).to.equal(0x16b3748n);
    expect(walPosition('1/0') > walPosition('0/FFFFFFFF')).to.equal(true);
    expect(() => walPosition('16B3748')).to.throw(/not a WAL position/);
  });

  it('sends reads to the primary without replicas, before the first probe, and inside readingFromPrimary', async () => {
    expect(new ReadRouting(0).replicaForRead()).to.equal(undefined);
    const routing = new ReadRouting(1);
    expect(routing.replicaForRead()).to.equal(undefined);
    const probe = fakeProbe();
    probe.replicas = [0n];
    await routing.probe(probe);
    expect(routing.replicaForRead()).to.equal(0);
    expect(await readingFromPrimary(() => Promise.resolve(routing.replicaForRead()))).to.equal(undefined);
  });

  it('measures lag as the age of the oldest primary position not replayed, and skips a replica past the bound or down', async () => {
    let now = 0;
    const routing = new ReadRouting(2, 1000, () => now);
    const probe = fakeProbe();
    probe.primary = 100n;
    probe.replicas = [100n, 100n];
    await routing.probe(probe);
    expect(routing.state.map((state) => state.lagMs)).to.deep.equal([0, 0]);
    // The primary moves on; replica 1 stops replaying.
    now = 500;
    probe.primary = 200n;
    probe.replicas = [200n, 100n];
    await routing.probe(probe);
    expect(routing.state.map((state) => state.lagMs)).to.deep.equal([0, 0]);
    now = 1600;
    probe.primary = 300n;
    probe.replicas = [300n, 100n];
    await routing.probe(probe);
    expect(routing.state.map((state) => state.lagMs)).to.deep.equal([0, 1100]);
    for (let i = 0; i < 20; i++) expect(routing.replicaForRead()).to.equal(0);
    // Replica 0 goes down: no replica is fit, reads go to the primary.
    now = 1700;
    probe.replicas = [undefined, 100n];
    await routing.probe(probe);
    expect(routing.state[0]).to.include({ up: false });
    expect(routing.replicaForRead()).to.equal(undefined);
    // An idle primary leaves nothing to replay: a replica that caught up is not behind.
    now = 5000;
    probe.replicas = [300n, 300n];
    await routing.probe(probe);
    expect(routing.state.map((state) => [state.up, state.lagMs])).to.deep.equal([
      [true, 0],
      [true, 0],
    ]);
  });

  it('reads at least from a position on a replica that has replayed it, else on the primary', async () => {
    const routing = new ReadRouting(2);
    const probe = fakeProbe();
    probe.primary = 300n;
    probe.replicas = [300n, 200n];
    await routing.probe(probe);
    const at = (position: bigint) => readingAtLeast(position, () => Promise.resolve(routing.replicaForRead()));
    expect(await at(250n)).to.equal(0);
    expect(await at(300n)).to.equal(0);
    expect(await at(301n)).to.equal(undefined);
    const anyFit = new Set<number | undefined>();
    for (let i = 0; i < 50; i++) anyFit.add(await at(200n));
    expect([...anyFit].sort()).to.deep.equal([0, 1]);
  });
});
