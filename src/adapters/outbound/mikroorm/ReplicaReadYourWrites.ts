import type { ClientRequest, ReadYourWrites } from '../../../application/ports/ReadYourWrites.js';
import type { WritePositions } from '../../../application/ports/WritePositions.js';
import { notingWrites, type WriteNote } from './readRouting.js';

export interface ReplicaReadYourWritesOptions {
  /** Where the clients' last write positions are kept (this process's memory, or Redis shared by the instances). */
  readonly positions: WritePositions;
  /** The primary's WAL position now (`Database.primaryPosition`). */
  readonly primaryPosition: () => Promise<bigint>;
  /** How long a position is kept: past it, every replica fit to read has replayed it. */
  readonly ttlMs: number;
  /** Bound on looking positions up; past it, or on a failure, the request reads from the primary. */
  readonly lookupTimeoutMs?: number;
  /** Told when the positions cannot be looked up or recorded (the request itself never fails for it), at most every 10 s. */
  readonly warn?: (message: string) => void;
}

/**
 * Read-your-writes over the read routing of readRouting.ts: a request that changes something reads
 * on the primary; any other reads on a replica only once that replica has replayed the largest
 * position recorded for its client's keys ({@link notingWrites}); a request whose statements wrote on the primary records the primary's
 * position for its writers' keys before it is answered. Positions that cannot be looked up make the
 * request read from the primary (the safe side); positions that cannot be recorded are told to
 * `warn`, and the request is answered as it is.
 */
export class ReplicaReadYourWrites implements ReadYourWrites {
  private readonly lookupTimeoutMs: number;
  private lastWarning = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: ReplicaReadYourWritesOptions) {
    this.lookupTimeoutMs = options.lookupTimeoutMs ?? 250;
  }

  async serve<T>(request: ClientRequest, work: () => Promise<T>): Promise<T> {
    const reads = request.changing ? 'primary' : await this.lookUp(request.clients);
    const note: WriteNote = { wrote: false };
    try {
      return await notingWrites(note, reads, work);
    } finally {
      if (note.wrote) await this.remember(request.writers ? request.writers() : request.clients);
    }
  }

  /** The position the client's reads start from: 0 when it wrote nothing lately, the primary when that cannot be told. */
  private async lookUp(clients: readonly string[]): Promise<bigint | 'primary'> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), this.lookupTimeoutMs);
      });
      return (await Promise.race([this.options.positions.get(clients), late])) ?? 0n;
    } catch (error) {
      this.warn(`write positions not looked up (reading from the primary): ${messageOf(error)}`);
      return 'primary';
    } finally {
      clearTimeout(timer);
    }
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.options.warn?.(message);
  }

  private async remember(writers: readonly string[]): Promise<void> {
    try {
      const position = await this.options.primaryPosition();
      await this.options.positions.record([...new Set(writers)], position, this.options.ttlMs);
    } catch (error) {
      this.warn(`write position not recorded: ${messageOf(error)}`);
    }
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
