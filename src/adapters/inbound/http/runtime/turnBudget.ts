import { performance } from 'node:perf_hooks';

/**
 * How long a turn of the loop may spend on requests. Node accepts one new connection per turn, so
 * the turns' length, not how much work is waiting, sets how fast a crowd of new clients gets in
 * (docs/adr/0015-load-shedding.md).
 */
export const TURN_BUDGET_MS = 5;

/**
 * Keeps each turn of the event loop short under load, so that the loop keeps polling — accepting
 * new connections, reading the health probes, taking database answers — while it serves a crowd.
 *
 * A request admitted by the shedding may start at once when the loop has spent less than
 * `budgetMs` on requests since this turn's first one; past that, it waits for a later turn, in
 * arrival order. Each later turn starts a batch of waiting requests, sized from how long the last
 * turn took: halved (or cut in proportion) when it ran past the budget, doubled when it stayed
 * under half of it. Work that finishes within its turn (SQLite's synchronous calls) is so spread
 * over many short turns instead of one long one; work that waits on I/O (PostgreSQL) leaves the
 * turns short, the batches grow, and nothing waits for long.
 *
 * Only public Node figures and callbacks: `performance.now()` and `setImmediate`, which runs in the
 * turn's check phase (after its polling) and, when set from there, in the next turn's. See
 * docs/adr/0015-load-shedding.md.
 */
export class TurnBudget {
  private readonly waiting: (() => void)[] = [];
  /** When the first request of this turn started; undefined until one does. */
  private turnStart: number | undefined;
  /** When the last batch was started (to time the turn it ran in); undefined with none running. */
  private batchStart: number | undefined;
  private batch = 16;
  private scheduled = false;

  constructor(
    private readonly budgetMs = TURN_BUDGET_MS,
    private readonly now: () => number = () => performance.now(),
    private readonly maxBatch = 1024,
  ) {}

  /** Requests waiting for a later turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * `undefined` when the request may start now; otherwise a promise that resolves in the turn
   * where it may.
   */
  take(): Promise<void> | undefined {
    const now = this.now();
    if (this.waiting.length === 0) {
      if (this.turnStart === undefined) {
        this.turnStart = now;
        this.schedule();
      }
      if (now - this.turnStart < this.budgetMs) return undefined;
    }
    this.schedule();
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.nextTurn());
  }

  /** In a turn's check phase: this turn is over; start the next batch, to run in what is left of it. */
  private nextTurn(): void {
    this.scheduled = false;
    const now = this.now();
    if (this.batchStart !== undefined) {
      // From the last batch's start to here: that batch's work and one whole turn of polling.
      const took = now - this.batchStart;
      if (took > this.budgetMs) this.batch = Math.max(1, Math.floor((this.batch * this.budgetMs) / took));
      else if (took < this.budgetMs / 2) this.batch = Math.min(this.maxBatch, this.batch * 2);
    }
    this.turnStart = undefined;
    if (this.waiting.length === 0) {
      this.batchStart = undefined;
      return;
    }
    this.batchStart = now;
    // Counted against the next turn's budget too: a request arriving while these run waits behind them.
    this.turnStart = now;
    for (const resolve of this.waiting.splice(0, this.batch)) resolve();
    this.schedule();
  }
}
