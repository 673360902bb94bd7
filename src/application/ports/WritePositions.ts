/**
 * Where each client's last write left the primary database (a WAL position), so that its next
 * requests read that write, on whichever instance serves them. A client is named by keys (its
 * address, its user); a request looks up all of its keys and reads from the furthest position.
 *
 * Promises: `get` answers the largest position still held for any of `keys` (`undefined`: none);
 * `record` keeps, for each key, the larger of the position held and the one given, for `ttlMs`
 * from now (a position past its time is forgotten: every replica fit to read has replayed it by
 * then). Either may reject when the store cannot be reached; the caller then reads from the
 * primary.
 */
export interface WritePositions {
  get(keys: readonly string[]): Promise<bigint | undefined>;
  record(keys: readonly string[], position: bigint, ttlMs: number): Promise<void>;
}
