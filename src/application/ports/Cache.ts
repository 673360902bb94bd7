/** How long a loaded value is kept, in milliseconds. */
export interface CacheEntryOptions {
  readonly ttlMs: number;
}

/**
 * Remembers loaded values by key, on this instance and — when shared — on every instance.
 *
 * Its promises:
 * - **Stampede protection.** Concurrent `getOrSet` calls for the same cold key on one instance run
 *   the loader once; the others wait for its answer.
 * - **Invalidation everywhere.** After `delete` or `deleteTagged` resolves, this instance never
 *   answers the old value, and when the cache is shared every other instance stops answering it
 *   within 200 ms. If a message is lost (the shared layer was away), an instance keeps an old
 *   value for at most its `ttlMs`.
 * - **No stale refill.** A load that a `delete` or `deleteTagged` on this instance overlapped
 *   loads again before anything is remembered: a read racing a write never keeps the old value.
 * - **A failing shared layer never fails a call.** `getOrSet` answers from memory or the loader,
 *   `delete` and `deleteTagged` still forget locally and resolve.
 *
 * Only the loader's own rejection rejects `getOrSet`, with the loader's very error; `undefined` from the loader is answered
 * and not remembered (a missing row is never cached, so a new one is seen at once).
 */
export interface Cache {
  /** The value of `key`, loading it with `loader` when it is not remembered. `tags` group keys for `deleteTagged`. */
  getOrSet<T>(
    key: string,
    loader: () => Promise<T | undefined>,
    options: CacheEntryOptions & { readonly tags?: readonly string[] },
  ): Promise<T | undefined>;

  /** Forgets `key` here and on every instance. */
  delete(key: string): Promise<void>;

  /** Forgets every key stored with one of `tags`, here and on every instance. */
  deleteTagged(tags: readonly string[]): Promise<void>;

  /** Closes the shared layer's connections, if any. */
  close(): Promise<void>;
}
