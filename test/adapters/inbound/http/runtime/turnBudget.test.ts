import { expect } from 'chai';
import { TurnBudget } from '../../../../../src/adapters/inbound/http/runtime/index.js';

/** The next turn's check phase: an immediate set from here runs after the one the budget set. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A clock the test moves: how long the work of a turn took. */
class Clock {
  ms = 1000;
  readonly now = (): number => this.ms;
}

describe('HTTP adapter: the turn budget (docs/adr/0015-load-shedding.md)', () => {
  it('lets requests start at once while the turn has spent less than its budget on them', () => {
    const clock = new Clock();
    const turns = new TurnBudget(5, clock.now);
    for (let i = 0; i < 4; i += 1) {
      expect(turns.take()).to.equal(undefined);
      clock.ms += 1;
    }
    expect(turns.queued).to.equal(0);
  });

  it('past the budget, a request waits for a later turn, and the waiting ones start in arrival order', async () => {
    const clock = new Clock();
    const turns = new TurnBudget(5, clock.now);
    expect(turns.take()).to.equal(undefined);
    clock.ms += 6;
    const started: number[] = [];
    const waits = [0, 1, 2].map((i) => {
      const wait = turns.take();
      expect(wait, `request ${i} waits`).to.be.instanceOf(Promise);
      return wait!.then(() => started.push(i));
    });
    expect(turns.queued).to.equal(3);
    // Nothing starts within the turn that ran past its budget.
    await Promise.resolve();
    expect(started).to.deep.equal([]);
    await Promise.all(waits);
    expect(started).to.deep.equal([0, 1, 2]);
    expect(turns.queued).to.equal(0);
  });

  it('never lets a newcomer pass requests already waiting, even in a fresh turn', async () => {
    const clock = new Clock();
    const turns = new TurnBudget(5, clock.now);
    expect(turns.take(), 'the first request of a turn starts at once').to.equal(undefined);
    clock.ms += 10;
    const order: string[] = [];
    const first = turns.take()!.then(() => order.push('waiting'));
    const second = turns.take();
    expect(second, 'a newcomer while one waits').to.be.instanceOf(Promise);
    await Promise.all([first, second!.then(() => order.push('newcomer'))]);
    expect(order).to.deep.equal(['waiting', 'newcomer']);
  });

  it('sizes each batch from how long the last turn took: smaller after a long turn, larger after short ones', async () => {
    const clock = new Clock();
    const turns = new TurnBudget(5, clock.now);
    expect(turns.take(), 'the first request of a turn starts at once').to.equal(undefined);
    clock.ms += 6;
    const startedPerTurn: number[] = [];
    let started = 0;
    for (let i = 0; i < 100; i += 1) void turns.take()!.then(() => (started += 1));
    // Each turn's batch "takes" 2 ms per request started in it.
    let before = 0;
    while (turns.queued > 0) {
      await nextTurn();
      await Promise.resolve();
      startedPerTurn.push(started - before);
      clock.ms += 2 * (started - before);
      before = started;
    }
    // 16 first; a 32 ms turn cuts the batch to fit 5 ms (2), a 4 ms turn keeps it, and so on.
    expect(startedPerTurn[0]).to.equal(16);
    expect(Math.max(...startedPerTurn.slice(2))).to.be.at.most(3);
    expect(startedPerTurn.reduce((a, b) => a + b, 0)).to.equal(100);
  });

  it('grows the batch while the turns stay short (work that waits on I/O), so a queue drains in a few turns', async () => {
    const clock = new Clock();
    const turns = new TurnBudget(5, clock.now);
    expect(turns.take(), 'the first request of a turn starts at once').to.equal(undefined);
    clock.ms += 6;
    for (let i = 0; i < 500; i += 1) void turns.take();
    let turnsTaken = 0;
    while (turns.queued > 0) {
      await nextTurn();
      turnsTaken += 1;
    }
    // 16, 32, 64, 128, 256: the clock never moves, so every turn is short.
    expect(turnsTaken).to.be.at.most(6);
  });
});
