import { offsetOf, type Page, type PageRequest, type SortOrder } from '../../../domain/shared/Page.js';

type Comparable = string | number | Date;

function compareValues(a: Comparable, b: Comparable): number {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Orders by one field, then by id, in one direction — like the SQL adapters (binary collation). */
export function byFieldThenId<T extends { id: string }>(field: (row: T) => Comparable, order: SortOrder): (a: T, b: T) => number {
  const sign = order === 'asc' ? 1 : -1;
  return (a, b) => sign * (compareValues(field(a), field(b)) || compareValues(a.id, b.id));
}

/**
 * One page of `rows` the way the SQL adapters answer it: sorted by the query's field, then by id,
 * in the query's direction, with the total of all rows.
 */
export function pageOf<Row extends { id: string }, Item, F extends string>(
  rows: Row[],
  query: PageRequest<F>,
  fields: Readonly<Record<F, (row: Row) => Comparable>>,
  toItem: (row: Row) => Item,
): Page<Item> {
  rows.sort(byFieldThenId(fields[query.sort], query.order));
  const start = offsetOf(query);
  return { items: rows.slice(start, start + query.perPage).map(toItem), total: rows.length, page: query.page, perPage: query.perPage };
}
