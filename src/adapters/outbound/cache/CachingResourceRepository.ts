import type { Cache } from '../../../application/ports/Cache.js';
import type { ListQuery, Page } from '../../../domain/shared/Page.js';
import type { ResourceChange, ResourceRepository } from '../../../domain/shared/ResourceRepository.js';
import { fromCacheable, toCacheable, type FreshReads } from './cacheable.js';

/** What the cache needs of a resource's entity: its id, its owner (owned resources), its stored state. */
interface CacheableEntity {
  readonly id: string;
  readonly ownerId: string | undefined;
  toProps(): object;
}

/** How a resource's rows are cached: under `plural`, for `ttlMs`, read back with `restore`, loaded through `fresh`. */
export interface CachedResourceSettings<E> {
  readonly plural: string;
  readonly ttlMs: number;
  restore(props: never): E;
  readonly fresh: FreshReads;
}

/**
 * A resource declared `cached` (ADR 0042): `findById` answers through the shared cache — one load per
 * cold row however many ask at once, read through `fresh` (the primary) so a forgotten row is never
 * loaded again from a lagging replica — and every update or delete forgets the row on every
 * instance before it is answered. The row is cached whole, with its owner, under its id alone: a
 * caller limited to its own rows (`owner`) is answered a cached row only if it is theirs, as the
 * query itself would (another owner's row is an unknown id). Lists are never cached.
 */
export class CachingResourceRepository<
  E extends CacheableEntity,
  S extends string = string,
> implements ResourceRepository<E, S> {
  constructor(
    private readonly inner: ResourceRepository<E, S>,
    private readonly cache: Cache,
    private readonly settings: CachedResourceSettings<E>,
  ) {}

  private keyOf(id: string): string {
    return `resource:${this.settings.plural}:${id}`;
  }

  async findById(id: string, owner?: string): Promise<E | undefined> {
    const props = await this.cache.getOrSet(
      this.keyOf(id),
      () => this.settings.fresh(async () => toCacheable((await this.inner.findById(id))?.toProps())),
      { ttlMs: this.settings.ttlMs },
    );
    if (props === undefined) return undefined;
    const entity = this.settings.restore(fromCacheable<never>(props));
    return owner !== undefined && entity.ownerId !== owner ? undefined : entity;
  }

  add(entity: E): Promise<void> {
    // A missing row is never cached: nothing to forget.
    return this.inner.add(entity);
  }

  update(id: string, change: ResourceChange<E>, owner?: string): Promise<E | undefined> {
    return this.forgetting(id, () => this.inner.update(id, change, owner));
  }

  delete(id: string, onlyAtVersions?: readonly number[], owner?: string): Promise<boolean> {
    return this.forgetting(id, () => this.inner.delete(id, onlyAtVersions, owner));
  }

  list(query: ListQuery<S>): Promise<Page<E>> {
    return this.inner.list(query);
  }

  findByIds(ids: readonly string[], owner?: string): Promise<readonly E[]> {
    return this.inner.findByIds(ids, owner);
  }

  listByReference(field: string, ids: readonly string[], query: ListQuery<S>): Promise<ReadonlyMap<string, Page<E>>> {
    return this.inner.listByReference(field, ids, query);
  }

  /** A write of row `id`, the row forgotten everywhere once it is done (also when it failed: it may have landed). */
  private async forgetting<T>(id: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      await this.cache.delete(this.keyOf(id));
    }
  }
}
