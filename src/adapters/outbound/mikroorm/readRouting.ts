import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';

/** Whether the code running in an async context wrote on the primary (see {@link notingWrites}). */
export interface WriteNote {
  wrote: boolean;
}

/**
 * What the code running in an async context asked of its reads: all of them on the primary, or on a
 * replica only once it has replayed the primary's WAL up to `atLeast` (else on the primary); and,
 * when it is one request's work ({@link notingWrites}), where its writes are noted.
 */
type ReadScope = ({ readonly primary: true } | { readonly atLeast: bigint }) & { readonly note?: WriteNote };

const scope = new AsyncLocalStorage<ReadScope>();

/** A scope nested in the current one keeps noting the writes where the outer one does. */
function nested(asked: { readonly primary: true } | { readonly atLeast: bigint }): ReadScope {
  const note = scope.getStore()?.note;
  return note ? { ...asked, note } : asked;
}

/**
 * Runs `work` with every read it makes outside a transaction — the ORM's and the SQL executor's —
 * on the primary instead of a replica: for a caller that must see its own writes at once.
 */
export function readingFromPrimary<T>(work: () => Promise<T>): Promise<T> {
  return scope.run(nested({ primary: true }), work);
}

/**
 * Runs `work` with every read it makes outside a transaction on a replica only if that replica has
 * replayed the primary's WAL up to `position` (as its last probe found), else on the primary: a
 * caller whose last write put the primary at `position` reads it, and reads from replicas again
 * as soon as one has replayed it.
 */
export function readingAtLeast<T>(position: bigint, work: () => Promise<T>): Promise<T> {
  return scope.run(nested({ atLeast: position }), work);
}

/**
 * Runs `work` (one request's) reading as `reads` says — from `position` on ({@link readingAtLeast}),
 * or all on the primary — and sets `note.wrote` when any statement it runs writes on the primary
 * ({@link noteWrite}): the caller then knows to remember the primary's position for its client.
 */
export function notingWrites<T>(note: WriteNote, reads: bigint | 'primary', work: () => Promise<T>): Promise<T> {
  return scope.run(reads === 'primary' ? { primary: true, note } : { atLeast: reads, note }, work);
}

/** The statement about to run on the primary writes: noted for the request running it, if any. */
export function noteWrite(): void {
  const note = scope.getStore()?.note;
  if (note) note.wrote = true;
}

/**
 * Whether a statement may write (what {@link noteWrite} is told of): anything but a `select`, a
 * `show`, or a transaction's own statements — a transaction writes by the statements it runs.
 */
export const writes = (sql: string): boolean =>
  !/^\s*(?:select|show|begin|start\s+transaction|commit|rollback|savepoint|release)\b/i.test(sql);

/** A WAL position (`0/16B3748`, PostgreSQL's `pg_lsn` as text) as a number that orders like it. */
export function walPosition(lsn: string): bigint {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(lsn.trim());
  if (!match) throw new Error(`not a WAL position: ${lsn}`);
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

/** How {@link ReadRouting} learns where the primary's WAL is and how far each replica replayed it. */
export interface ReplicaProbe {
  /** The primary's WAL position (its insert position: a commit may be asynchronous). */
  primaryPosition(): Promise<bigint>;
  /** How far replica `index` has replayed; rejects when it cannot be reached within the bound, or is no replica. */
  replayedPosition(index: number): Promise<bigint>;
}

/** What the last probe found of one replica. */
export interface ReplicaState {
  readonly up: boolean;
  /** Milliseconds since the primary reached a position this replica has not replayed yet (0: none). */
  readonly lagMs: number;
  readonly replayed: bigint;
}

/** The primary's positions are kept this long past the largest lag that matters, and no more than this many. */
const MAX_SAMPLES = 1000;

/**
 * Where a read outside a transaction goes (`database.replica_urls`): one of the replicas at random
 * among those up and no further behind than `maxLagMs` (`database.replica_max_lag`), or the primary
 * when there is none such or the current async context reads from the primary
 * ({@link readingFromPrimary}) or from a position none of them has replayed ({@link readingAtLeast}). Writes and transactions never ask: they always run on the primary.
 *
 * A replica's lag is measured by WAL positions, not by timestamps (an idle primary leaves a replica
 * nothing to replay, and it is then not behind): each {@link probe} records the primary's position
 * with the time, and a replica is behind by the age of the oldest recorded position it has not
 * replayed. A replica serves no read before its first probe found it up.
 */
export class ReadRouting {
  private readonly states: ReplicaState[];
  private samples: { at: number; position: bigint }[] = [];
  private probing = false;

  constructor(
    /** How many replicas there are; their indexes are `0 … replicas - 1`. */
    readonly replicas: number,
    private readonly maxLagMs: number = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {
    this.states = Array.from({ length: replicas }, () => ({ up: false, lagMs: 0, replayed: 0n }));
  }

  /** What the last probe found of each replica, by index. */
  get state(): readonly ReplicaState[] {
    return this.states;
  }

  /** The index of the replica the next read goes to, or `undefined` for the primary. */
  replicaForRead(): number | undefined {
    const asked = scope.getStore();
    if (this.replicas === 0 || (asked && 'primary' in asked)) return undefined;
    const atLeast = asked?.atLeast ?? 0n;
    const fit = this.states.flatMap((state, index) =>
      state.up && state.lagMs <= this.maxLagMs && state.replayed >= atLeast ? [index] : [],
    );
    return fit.length === 0 ? undefined : fit[randomInt(fit.length)];
  }

  /** A read failed on replica `index`: it serves none until the next probe finds it up. */
  failed(index: number): void {
    const state = this.states[index];
    if (state) this.states[index] = { ...state, up: false };
  }

  /**
   * Asks the primary its position and every replica how far it replayed (at once; each bounded by
   * the probe itself), and updates their states: a replica that does not answer is down until a
   * probe finds it again. A probe still running when the next is due makes that one do nothing.
   */
  async probe(probe: ReplicaProbe): Promise<void> {
    if (this.replicas === 0 || this.probing) return;
    this.probing = true;
    try {
      const at = this.now();
      let primary: bigint;
      try {
        primary = await probe.primaryPosition();
      } catch {
        // Without the primary's position no lag can be told; the states stay as they were.
        return;
      }
      this.samples.push({ at, position: primary });
      const horizon = at - 2 * Math.min(this.maxLagMs, 3_600_000);
      this.samples = this.samples.filter((sample) => sample.at >= horizon).slice(-MAX_SAMPLES);
      await Promise.all(
        this.states.map(async (previous, index) => {
          try {
            const replayed = await probe.replayedPosition(index);
            this.states[index] = { up: true, replayed, lagMs: this.lagOf(replayed) };
          } catch {
            this.states[index] = { ...previous, up: false };
          }
        }),
      );
    } finally {
      this.probing = false;
    }
  }

  private lagOf(replayed: bigint): number {
    const behind = this.samples.find((sample) => sample.position > replayed);
    return behind ? this.now() - behind.at : 0;
  }
}
