import { Product } from '../../../src/domain/product/Product.js';
import type { SortOrder } from '../../../src/domain/shared/Page.js';
import { productInput, type ProductSortField } from './product.js';

export type { ProductListQuery, ProductSortField } from './product.js';

/** A UUID-shaped id whose last hex digits order the products deliberately. */
export const productId = (suffix: string): string => `00000000-0000-4000-8000-${suffix.padStart(12, '0')}`;

const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

const stored = (suffix: string, name: string, price: number, created: number, updated: number): Product =>
  Product.restore({
    ...productInput,
    id: productId(suffix),
    name,
    price,
    version: 1,
    createdAt: at(created),
    updatedAt: at(updated),
  });

/**
 * Six products whose sort keys tie on purpose (three named Widget, two Gadget; prices 5 and 10
 * shared; creation and update times shared), listed in an order that is neither the id order nor
 * any sort order, so a tie broken by insertion order instead of by id shows.
 */
export const CATALOGUE: readonly Product[] = [
  stored('c', 'Widget', 10, 1, 3),
  stored('a', 'Widget', 5, 0, 3),
  stored('e', 'Gadget', 10, 1, 1),
  stored('b', 'Widget', 10, 2, 2),
  stored('d', 'Bolt', 2.5, 1, 4),
  stored('f', 'Gadget', 5, 3, 3),
];

/**
 * The id suffixes of CATALOGUE in ascending order of each field it lists, ties by ascending id.
 * A sort field added later is not listed (CATALOGUE gives it no deliberate ties): SORTS is the
 * fields listed here.
 */
const ASCENDING = {
  // Bolt d; Gadget e, f; Widget a, b, c.
  name: ['d', 'e', 'f', 'a', 'b', 'c'],
  // 2.5 d; 5: a, f; 10: b, c, e.
  price: ['d', 'a', 'f', 'b', 'c', 'e'],
  // t0 a; t1: c, d, e; t2 b; t3 f.
  created_at: ['a', 'c', 'd', 'e', 'b', 'f'],
  // t1 e; t2 b; t3: a, c, f; t4 d.
  updated_at: ['e', 'b', 'a', 'c', 'f', 'd'],
} satisfies Partial<Record<ProductSortField, string[]>>;

/** A sort field whose expected order ASCENDING lists. */
export type ListedSort = keyof typeof ASCENDING;

/** The ids of CATALOGUE in the order a list sorted by `sort` and `order` must give them. */
export function expectedOrder(sort: ListedSort, order: SortOrder): string[] {
  const ids = ASCENDING[sort].map(productId);
  // Ties are broken by id in the same direction, so descending is exactly ascending reversed.
  return order === 'asc' ? ids : ids.reverse();
}

/** The sort fields ASCENDING lists, in its order. */
export const SORTS: readonly ListedSort[] = Object.keys(ASCENDING) as ListedSort[];
export const ORDERS: readonly SortOrder[] = ['asc', 'desc'];
