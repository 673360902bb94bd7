/**
 * A value as the cache keeps it (JSON, in memory and in Redis alike): plain data with each `Date`
 * as `{ "$date": <ISO text> }`, which `fromCacheable` turns back into a `Date`.
 */
export type Cacheable = unknown;

const DATE = '$date';

/** `value` with every `Date` in it (at any depth) tagged, so it survives JSON. */
export function toCacheable(value: unknown): Cacheable {
  if (value instanceof Date) return { [DATE]: value.toISOString() };
  if (Array.isArray(value)) return value.map(toCacheable);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCacheable(v)]));
  return value;
}

/** What `toCacheable` was given, its dates `Date`s again. */
export function fromCacheable<T>(value: Cacheable): T {
  return revive(value) as T;
}

function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0]![0] === DATE && typeof entries[0]![1] === 'string')
      return new Date(entries[0]![1]);
    return Object.fromEntries(entries.map(([k, v]) => [k, revive(v)]));
  }
  return value;
}

/** Runs a cache's loader so it reads what is committed, never a lagging copy (the wiring says how: the primary). */
export type FreshReads = <T>(work: () => Promise<T>) => Promise<T>;

/** The tag of every cached answer about user `id`: `deleteTagged([userTag(id)])` forgets them all. */
export const userTag = (id: string): string => `user:${id}`;
