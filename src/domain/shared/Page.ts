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
