import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { WritePositions } from '../../../../src/application/ports/WritePositions.js';

/** A store under test, and how to let `ms` milliseconds pass for it. */
export interface WritePositionsSubject {
  readonly positions: WritePositions;
  pass(ms: number): Promise<void>;
}

/** The promises of the WritePositions port, for every adapter. */
export function writePositionsContract(subject: () => WritePositionsSubject): void {
  const key = (): string => `test:${randomUUID()}`;

  it('answers nothing for keys never recorded, and for no keys', async () => {
    const { positions } = subject();
    expect(await positions.get([key(), key()])).to.equal(undefined);
    expect(await positions.get([])).to.equal(undefined);
  });

  it('answers the largest position held for any of the keys', async () => {
    const { positions } = subject();
    const [address, user, other] = [key(), key(), key()];
    await positions.record([address], 0x10n, 60_000);
    await positions.record([user, other], 0x2_0000_0000n, 60_000);
    expect(await positions.get([address])).to.equal(0x10n);
    expect(await positions.get([address, user])).to.equal(0x2_0000_0000n);
    expect(await positions.get([key(), other])).to.equal(0x2_0000_0000n);
  });

  it('never moves a key back to a smaller position (writes recorded out of order)', async () => {
    const { positions } = subject();
    const client = key();
    await positions.record([client], 0xffff_ffffn, 60_000);
    await positions.record([client], 0x1_0000_0000n, 60_000);
    await positions.record([client], 0xfffn, 60_000);
    expect(await positions.get([client])).to.equal(0x1_0000_0000n);
  });

  it('forgets a position once its time is over, and a later record holds it for its own time', async () => {
    const { positions, pass } = subject();
    const [client, other] = [key(), key()];
    await positions.record([client, other], 5n, 100);
    await pass(40);
    await positions.record([other], 3n, 400);
    await pass(150);
    expect(await positions.get([client])).to.equal(undefined);
    expect(await positions.get([other])).to.equal(5n);
  });
}
