import { expect } from 'chai';
import { ITEMS_PER_TURN, paced, type Pace } from '../../../../src/adapters/inbound/graphql/pacing.js';

const isPromise = (value: unknown): value is Promise<unknown> => value instanceof Promise;

describe('paced list items (a large answer built over many turns of the event loop)', () => {
  it('hands a short list out as it is', () => {
    const items = Array.from({ length: ITEMS_PER_TURN }, (_, i) => i);
    expect(paced({}, items)).to.deep.equal(items);
  });

  it("hands out a request's items past the first slice a turn apart per slice, in order, others running between", async () => {
    // A turn counter, started first: one step per turn of the event loop, as other requests' work would run.
    let turn = 0;
    const tick = (): void => {
      turn += 1;
      if (turn < 20) setImmediate(tick);
    };
    setImmediate(tick);
    const context: { pace?: Pace } = {};
    const first = paced(
      context,
      Array.from({ length: ITEMS_PER_TURN + 10 }, (_, i) => i),
    );
    // A second list of the same request continues its pace: all of it behind the first list's slices.
    const second = paced(
      context,
      Array.from({ length: 2 * ITEMS_PER_TURN }, (_, i) => 1000 + i),
    );
    expect(first.slice(0, ITEMS_PER_TURN).some(isPromise)).to.equal(false);
    expect(first.slice(ITEMS_PER_TURN).every(isPromise)).to.equal(true);
    expect(second.every(isPromise)).to.equal(true);

    const turns = new Set<number>();
    const resolved = await Promise.all(
      [...first, ...second].map(async (item) => {
        const value = await item;
        turns.add(turn);
        return value;
      }),
    );
    expect(resolved).to.deep.equal([
      ...Array.from({ length: ITEMS_PER_TURN + 10 }, (_, i) => i),
      ...Array.from({ length: 2 * ITEMS_PER_TURN }, (_, i) => 1000 + i),
    ]);
    // 3 * ITEMS_PER_TURN + 10 items: the first slice at once, then three more slices, each on a turn of its own.
    expect([...turns]).to.deep.equal([0, 1, 2, 3]);
  });
});
