import { BentoCache, bentostore } from 'bentocache';
import { memoryDriver } from 'bentocache/drivers/memory';
import { redisBusDriver, redisDriver } from 'bentocache/drivers/redis';
import { Redis, type RedisOptions } from 'ioredis';
import type { Cache, CacheEntryOptions } from '../../../application/ports/Cache.js';

export interface BentoCacheSettings {
  /** Keys are stored under this prefix (in Redis and on the bus channel). */
  readonly prefix: string;
  /** Empty: memory only, on this instance. Set: memory + Redis + an invalidation bus. */
  readonly redisUrl: string;
  /** At most this many entries in memory. */
  readonly maxItems?: number;
  /** Told (throttled by the caller) when the shared layer has a connection problem. */
  readonly onRedisError?: (error: Error) => void;
}

/**
 * The `Cache` port over bentocache: a memory layer (L1), and with Redis a shared layer (L2) and a
 * bus that makes every instance drop its L1 copy of a deleted key. Values are stored as JSON in
 * both modes, so what one instance caches another reads alike: cache plain data.
 *
 * Redis clients: the L2 client and the bus publisher never queue while disconnected (a call fails
 * over to memory and the loader at once); the bus subscriber queues and retries without limit, so
 * it subscribes again when Redis comes back. bentocache's bus builds its publisher and then its
 * subscriber with `duplicate()` of the client given, in that order: the given client's
 * `duplicate` hands out the two kinds in turn, each with the error listener.
 */
export class BentoCacheAdapter implements Cache {
  private readonly bento: BentoCache<{ cache: ReturnType<typeof bentostore> }>;
  private readonly clients: Redis[] = [];
  /** Bumped by every delete here, so a load that overlapped one loads again rather than store what it read. */
  private deletes = 0;
  /**
   * What this instance loaded itself, until the moment bentocache's memory copy expires (load time +
   * ttl): answered without going through bentocache, whose hit costs more than the rest of a cached
   * read (bench/layers.ts). Emptied by every delete here and by every message of the bus, before
   * bentocache drops its own copy; frozen JSON, as bentocache would answer it.
   */
  private readonly hot = new Map<string, { readonly value: unknown; readonly until: number }>();
  /** Bumped with every emptying of `hot`: a read that overlapped one keeps nothing there. */
  private generation = 0;
  private readonly maxItems: number;

  constructor(settings: BentoCacheSettings) {
    this.maxItems = settings.maxItems ?? 10_000;
    const store = bentostore().useL1Layer(memoryDriver({ maxItems: this.maxItems }));
    if (settings.redisUrl) {
      const onError = settings.onRedisError ?? (() => undefined);
      store.useL2Layer(redisDriver({ connection: this.client(settings.redisUrl, FAIL_FAST, onError) }));
      // Never connects itself: only the template of the bus's two clients.
      const bus = this.client(settings.redisUrl, { ...FAIL_FAST, lazyConnect: true }, onError);
      let made = 0;
      bus.duplicate = (override?: Partial<RedisOptions>) => {
        const options = made++ % 2 === 0 ? FAIL_FAST : SUBSCRIBER;
        return this.client(settings.redisUrl, { ...options, ...override }, onError);
      };
      store.useBus(redisBusDriver({ connection: bus, retryQueue: { enabled: true, maxSize: 1000 } }));
    }
    this.bento = new BentoCache({
      default: 'cache',
      prefix: settings.prefix,
      stores: { cache: store },
      // A shared layer that fails is skipped (and not asked again for a second): memory and the loader answer.
      suppressL2Errors: true,
      l2CircuitBreakerDuration: '1s',
      grace: false,
    });
    // bentocache builds the store (and subscribes its bus) on first use: subscribe from the start.
    this.bento.use('cache');
    // Emitted just before bentocache drops its memory copies of the message's keys, in the same turn.
    this.bento.on('bus:message:received', () => this.forgetHot());
  }

  async getOrSet<T>(
    key: string,
    loader: () => Promise<T | undefined>,
    options: CacheEntryOptions & { readonly tags?: readonly string[] },
  ): Promise<T | undefined> {
    const hot = this.hot.get(key);
    if (hot !== undefined) {
      if (hot.until > Date.now()) return hot.value as T;
      this.hot.delete(key);
    }
    const generation = this.generation;
    let loadedAt: number | undefined;
    // bentocache wraps a factory's error in its own; the caller gets the loader's, as thrown.
    let failed: { readonly error: unknown } | undefined;
    try {
      const value = await this.bento.getOrSet<T | undefined>({
        key,
        ttl: options.ttlMs,
        ...(options.tags ? { tags: [...options.tags] } : {}),
        factory: async (ctx) => {
          let loaded: T | undefined;
          for (let attempt = 0; attempt < MAX_LOADS; attempt += 1) {
            const before = this.deletes;
            loadedAt = Date.now();
            try {
              loaded = await loader();
            } catch (error) {
              failed = { error };
              throw error;
            }
            // A delete while loading may be about a write the load did not see: load again.
            if (before === this.deletes) break;
          }
          return loaded === undefined ? ctx.skip() : loaded;
        },
      });
      // Only what this call loaded: its expiry is known. A value bentocache had is asked for again.
      if (loadedAt !== undefined && value !== undefined && generation === this.generation) {
        if (this.hot.size >= this.maxItems) this.hot.clear();
        this.hot.set(key, { value: frozenJson(value), until: loadedAt + options.ttlMs });
      }
      return value;
    } catch (error) {
      throw failed ? failed.error : error;
    }
  }

  async delete(key: string): Promise<void> {
    this.deletes += 1;
    this.forgetHot();
    await this.bento.delete({ key });
  }

  async deleteTagged(tags: readonly string[]): Promise<void> {
    this.deletes += 1;
    this.forgetHot();
    await this.bento.deleteByTag({ tags: [...tags] });
  }

  async close(): Promise<void> {
    await this.bento.disconnect().catch(() => undefined);
    for (const client of this.clients) client.disconnect();
  }

  private forgetHot(): void {
    this.generation += 1;
    this.hot.clear();
  }

  private client(url: string, options: RedisOptions, onError: (error: Error) => void): Redis {
    const client = new Redis(url, { ...options, retryStrategy: (attempt) => Math.min(attempt * 200, 2000) });
    client.on('error', onError);
    this.clients.push(client);
    return client;
  }
}

/** `value` as JSON gives it back, frozen at every depth: shared by every caller, so never changed by one. */
function frozenJson(value: unknown): unknown {
  return deepFreeze(JSON.parse(JSON.stringify(value)) as unknown);
}

function deepFreeze(value: unknown): unknown {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** How many times a load overlapped by deletes runs, at most (the last answer is kept whatever happened). */
const MAX_LOADS = 3;
const FAIL_FAST: RedisOptions = { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 };
const SUBSCRIBER: RedisOptions = { enableOfflineQueue: true, maxRetriesPerRequest: null, connectTimeout: 2000 };
