import type { PageRequest, SortOrder } from '../../../domain/shared/Page.js';
import { decodeFields, optional, rule, trimmedText } from './fields.js';

const integerIn = (min: number, max: number) =>
  rule(`must be an integer from ${min} to ${max}`, (u) => {
    const text = typeof u === 'number' ? String(u) : u;
    if (typeof text !== 'string' || !/^\d{1,9}$/.test(text.trim())) return undefined;
    const n = Number(text);
    return n >= min && n <= max ? n : undefined;
  });

export const PageField = integerIn(1, 1_000_000_000 - 1);
export const PerPageField = integerIn(1, 100);
export const OrderField = rule('must be asc or desc', (u): SortOrder | undefined => {
  if (typeof u !== 'string') return undefined;
  const order = u.trim().toLowerCase();
  return order === 'asc' || order === 'desc' ? order : undefined;
});
export const SearchField = trimmedText(1, 100);

export const sortField = <F extends string>(fields: readonly F[]) =>
  rule(`must be one of ${fields.join(', ')}`, (u): F | undefined =>
    typeof u === 'string' && (fields as readonly string[]).includes(u.trim()) ? (u.trim() as F) : undefined,
  );

export interface ListDefaults<F extends string> {
  readonly sortFields: readonly F[];
  readonly defaultSort: F;
}

/**
 * List query parameters (`page`, `per_page`, `sort`, `order`, and `q` when searchable) with the
 * defaults of CONTRACT §6: page 1, 20 per page, the resource's default sort, `desc`.
 */
export function decodeListQuery<F extends string>(
  query: Record<string, unknown>,
  defaults: ListDefaults<F>,
  options: { search: 'none' | 'optional' | 'required' } = { search: 'none' },
): PageRequest<F> & { q?: string } {
  const shape = {
    page: optional(PageField),
    per_page: optional(PerPageField),
    sort: optional(sortField(defaults.sortFields)),
    order: optional(OrderField),
    ...(options.search === 'none' ? {} : { q: { codec: SearchField, required: options.search === 'required' } }),
  };
  const decoded = decodeFields(shape, query, 'query') as { page?: number; per_page?: number; sort?: F; order?: SortOrder; q?: string };
  return {
    page: decoded.page ?? 1,
    perPage: decoded.per_page ?? 20,
    sort: decoded.sort ?? defaults.defaultSort,
    order: decoded.order ?? 'desc',
    ...(decoded.q !== undefined ? { q: decoded.q } : {}),
  };
}
