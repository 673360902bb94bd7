import { offsetOf, type Page, type PageRequest, type SortOrder } from '../../../domain/shared/Page.js';

/** A value a list sorts by; `null` (an optional field left empty) sorts last in both directions. */
export type Comparable = string | number | boolean | Date | null;

function compareValues(a: Exclude<Comparable, null>, b: Exclude<Comparable, null>): number {
  const x = a instanceof Date ? a.getTime() : typeof a === 'boolean' ? Number(a) : a;
  const y = b instanceof Date ? b.getTime() : typeof b === 'boolean' ? Number(b) : b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Orders by one field, then by id, in one direction — like the SQL adapters (binary collation,
 * false before true, nulls last whichever the direction).
 */
export function byFieldThenId<T extends { id: string }>(
  field: (row: T) => Comparable,
  order: SortOrder,
): (a: T, b: T) => number {
  const sign = order === 'asc' ? 1 : -1;
  return (a, b) => {
    const x = field(a);
    const y = field(b);
    if ((x === null) !== (y === null)) return x === null ? 1 : -1;
    return sign * ((x === null || y === null ? 0 : compareValues(x, y)) || compareValues(a.id, b.id));
  };
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
  return {
    items: rows.slice(start, start + query.perPage).map(toItem),
    total: rows.length,
    page: query.page,
    perPage: query.perPage,
  };
}
