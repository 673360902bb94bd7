/** Sort direction of a list. */
export type SortOrder = 'asc' | 'desc';

/** Which page of a list, sorted how. Ties are always broken by id, so pages never overlap. */
export interface PageRequest<SortField extends string> {
  readonly page: number;
  readonly perPage: number;
  readonly sort: SortField;
  readonly order: SortOrder;
}

/** One page of a list, with the total number of rows across all pages. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  readonly page: number;
  readonly perPage: number;
}

/** ceil(total / perPage); 0 for an empty list. */
export function totalPages(page: Pick<Page<unknown>, 'total' | 'perPage'>): number {
  return page.total === 0 ? 0 : Math.ceil(page.total / page.perPage);
}

/** Rows to skip before a page. */
export function offsetOf(request: Pick<PageRequest<string>, 'page' | 'perPage'>): number {
  return (request.page - 1) * request.perPage;
}

/**
 * A page of a resource's list: with `q`, only rows whose search field contains it
 * (case-insensitive); with `filters`, only rows whose named reference fields equal the given ids.
 */
export interface ListQuery<SortField extends string> extends PageRequest<SortField> {
  readonly q?: string;
  /** Reference field (snake case, e.g. `customer_id`) → the id it must equal. */
  readonly filters?: Readonly<Record<string, string>>;
  /** An owned resource's list for a caller who sees only their own rows: the owner's id (`total` counts only theirs). */
  readonly owner?: string;
}
