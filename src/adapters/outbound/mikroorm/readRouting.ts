import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';

/** What the code running in an async context asked of its reads: all of them on the primary. */
interface ReadScope {
  readonly primary: true;
}

const scope = new AsyncLocalStorage<ReadScope>();

/**
 * Runs `work` with every read it makes outside a transaction — the ORM's and the SQL executor's —
 * on the primary instead of a replica: for a caller that must see its own writes at once.
 */
export function readingFromPrimary<T>(work: () => Promise<T>): Promise<T> {
  return scope.run({ primary: true }, work);
}

/**
 * Where a read outside a transaction goes (`database.replica_urls`): one of the replicas at random,
 * or the primary when there is none or the current async context reads from the primary
 * ({@link readingFromPrimary}). Writes and transactions never ask: they always run on the primary.
 */
export class ReadRouting {
  /** `replicas`: how many replicas there are; their indexes are `0 … replicas - 1`. */
  constructor(readonly replicas: number) {}

  /** The index of the replica the next read goes to, or `undefined` for the primary. */
  replicaForRead(): number | undefined {
    if (this.replicas === 0 || scope.getStore()?.primary) return undefined;
    return randomInt(this.replicas);
  }
}
