import type { ListQuery, Page } from './Page.js';

/**
 * Works out the next state of a stored row from its current one. Synchronous and free of I/O: it
 * runs while the row is locked. Returning `current` itself writes nothing; throwing writes nothing
 * and rejects the update with what was thrown.
 */
export type ResourceChange<E> = (current: E) => E;

/**
 * Where the rows of a declared resource live (every resource has one, served by the shared SQL and
 * memory cores). Promises: `update` is an atomic read-modify-write — no other update or delete of
 * the same row lands between the read `change` is given and the write of what it returns, so
 * concurrent updates never lose a write and never fail for having raced; lists are sorted by the
 * field, then by id, so pages never repeat or skip a row. A write whose reference field names no
 * existing row is refused with a ValidationError on that field.
 *
 * `owner` (an owned resource, for a caller who sees only their own rows) limits every read and
 * write to the rows of that owner, in the query itself: a row of another owner is answered as an
 * unknown id is, and lists (their totals included) hold only that owner's rows. Absent: every row.
 */
export interface ResourceRepository<E, S extends string = string> {
  add(entity: E): Promise<void>;
  findById(id: string, owner?: string): Promise<E | undefined>;
  /** Applies `change` to the stored row and answers what is stored after it; `undefined` for an unknown id. */
  update(id: string, change: ResourceChange<E>, owner?: string): Promise<E | undefined>;
  /**
   * `true` when a row was deleted. With `onlyAtVersions`, it is deleted only if its stored version
   * is one of them (checked in the same statement), else nothing is deleted. A row another resource
   * still references is not deleted: the resource's still-referenced ConflictError.
   */
  delete(id: string, onlyAtVersions?: readonly number[], owner?: string): Promise<boolean>;
  /**
   * A page; with `q`, only rows whose search field contains it (case-insensitive); with `filters`,
   * by reference; with `owner`, only that owner's rows.
   */
  list(query: ListQuery<S>): Promise<Page<E>>;
  /** The rows with these ids (an unknown id is left out), in one read whatever their number. */
  findByIds(ids: readonly string[], owner?: string): Promise<readonly E[]>;
  /**
   * For each of `ids`, the page of rows whose reference `field` (snake case) names it (every id gets
   * a page, empty when none names it), sorted and paged as `list` pages, in one read whatever their number.
   */
  listByReference(field: string, ids: readonly string[], query: ListQuery<S>): Promise<ReadonlyMap<string, Page<E>>>;
}
