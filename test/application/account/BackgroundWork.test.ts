import { expect } from 'chai';
import { BackgroundWork } from '../../../src/application/account/BackgroundWork.js';

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('BackgroundWork', () => {
  let reports: { what: string; error: unknown }[];
  let work: BackgroundWork;

  beforeEach(() => {
    reports = [];
    work = new BackgroundWork((what, error) => reports.push({ what, error }));
  });

  it('runs the task', async () => {
    let ran = false;
    work.start('a task', async () => {
      ran = true;
    });
    await work.idle();
    expect(ran).to.equal(true);
    expect(reports).to.deep.equal([]);
  });

  it('does not run the task before `start` returns, so the caller answers first', () => {
    let ran = false;
    work.start('a task', async () => {
      ran = true;
    });
    expect(ran).to.equal(false);
  });

  it('starts the task only once the work already queued has run, so the caller’s answer goes out first', async () => {
    let ran = false;
    work.start('a task', async () => {
      ran = true;
    });
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(ran, 'not within the microtasks of the current answer').to.equal(false);
    await work.idle();
    expect(ran).to.equal(true);
  });

  it('reports a rejecting task with what was being done, never to the caller', async () => {
    const error = new Error('smtp down');
    expect(() => work.start('sending a mail', () => Promise.reject(error))).to.not.throw();
    await work.idle();
    expect(reports).to.deep.equal([{ what: 'sending a mail', error }]);
  });

  it('reports a task that throws before returning a promise', async () => {
    const error = new Error('thrown at once');
    expect(() =>
      work.start('a sync failure', () => {
        throw error;
      }),
    ).to.not.throw();
    await work.idle();
    expect(reports).to.deep.equal([{ what: 'a sync failure', error }]);
  });

  it('leaves no unhandled rejection behind a failure', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', listener);
    try {
      work.start('failing', () => Promise.reject(new Error('boom')));
      await work.idle();
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', listener);
    }
    expect(unhandled).to.deep.equal([]);
    expect(reports).to.have.length(1);
  });

  it('keeps running the other tasks when one fails', async () => {
    const done: string[] = [];
    work.start('first', () => Promise.reject(new Error('first failed')));
    work.start('second', async () => {
      done.push('second');
    });
    await work.idle();
    expect(done).to.deep.equal(['second']);
    expect(reports.map((r) => r.what)).to.deep.equal(['first']);
  });

  it('idle resolves at once when nothing runs', async () => {
    await work.idle();
  });

  it('idle waits for every task started so far', async () => {
    const slow = gate();
    let finished = false;
    work.start('slow', async () => {
      await slow.promise;
      finished = true;
    });
    let idle = false;
    const waiting = work.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle, 'idle while a task runs').to.equal(false);
    slow.open();
    await waiting;
    expect(finished).to.equal(true);
  });

  it('idle waits for tasks started by tasks, and for tasks started while it waits', async () => {
    const order: string[] = [];
    const later = gate();
    work.start('parent', async () => {
      order.push('parent');
      work.start('child', async () => {
        await later.promise;
        order.push('child');
      });
    });
    const waiting = work.idle();
    work.start('sibling', async () => {
      await later.promise;
      order.push('sibling');
    });
    setImmediate(later.open);
    await waiting;
    expect(order).to.have.members(['parent', 'child', 'sibling']);
  });
});
