import type { ListQuery, SortOrder } from '../../../domain/shared/Page.js';
import { decodeFields, optional, rule, snakeName, trimmedText, type Shape } from './fields.js';

/** Every list's defaults (docs/lists.md), for REST and GraphQL alike: page 1, 20 per page, newest first. */
export const LIST_DEFAULTS = { page: 1, perPage: 20, sort: 'created_at', order: 'desc' } as const;

const integerIn = (min: number, max: number, defaultValue: number) =>
  rule(
    `must be an integer from ${min} to ${max}`,
    (u) => {
      const text = typeof u === 'number' ? String(u) : u;
      if (typeof text !== 'string' || !/^\d{1,9}$/.test(text.trim())) return undefined;
      const n = Number(text);
      return n >= min && n <= max ? n : undefined;
    },
    { type: 'integer', minimum: min, maximum: max, default: defaultValue },
  );

export const PageField = integerIn(1, 1_000_000_000 - 1, LIST_DEFAULTS.page);
export const PerPageField = integerIn(1, 100, LIST_DEFAULTS.perPage);
export const OrderField = rule(
  'must be asc or desc',
  (u): SortOrder | undefined => {
    if (typeof u !== 'string') return undefined;
    const order = u.trim().toLowerCase();
    return order === 'asc' || order === 'desc' ? order : undefined;
  },
  {
    type: 'string',
    enum: ['asc', 'desc'],
    default: LIST_DEFAULTS.order,
    description: 'Sort direction: asc or desc (any case)',
  },
);
export const SearchField = trimmedText(1, 100);

export const sortField = <F extends string>(fields: readonly F[]) =>
  rule(
    `must be one of ${fields.join(', ')}`,
    (u): F | undefined =>
      typeof u === 'string' && (fields as readonly string[]).includes(u.trim()) ? (u.trim() as F) : undefined,
    {
      type: 'string',
      enum: fields,
      ...((fields as readonly string[]).includes(LIST_DEFAULTS.sort) ? { default: LIST_DEFAULTS.sort } : {}),
      description: `The field to sort by (ties broken by id): ${fields.join(', ')}`,
    },
  );

/** The field every list sorts by by default; every resource can be sorted by it. */
export type DefaultSort = typeof LIST_DEFAULTS.sort;

/** A list's reference filters as the domain's list query takes them: keyed by the field's JSON (snake) name. */
export interface ListFilters {
  readonly filters?: Readonly<Record<string, string>>;
}

/** Decoded filters (keyed by their camel-case names) → `filters` keyed by snake case; absent when none is given. */
export function listFilters(decoded: Readonly<Record<string, unknown>>): ListFilters {
  const entries = Object.entries(decoded).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return entries.length === 0
    ? {}
    : { filters: Object.fromEntries(entries.map(([name, id]) => [snakeName(name), id])) };
}

/** What a list route reads from its query: its sortable fields, whether it searches, its filters. */
export interface ListQuerySpec<F extends string = string, S extends Shape = Shape> {
  readonly sortFields: readonly (F | DefaultSort)[];
  readonly search?: 'none' | 'optional' | 'required';
  readonly filters?: S;
}

/** The query parameters of a list (their codecs, by their snake-case names), for decoding and the API document. */
export function listQueryShape(spec: ListQuerySpec): Shape {
  const search = spec.search ?? 'none';
  const filters = Object.fromEntries(Object.entries(spec.filters ?? {}).map(([key, field]) => [snakeName(key), field]));
  return {
    page: optional(PageField),
    per_page: optional(PerPageField),
    sort: optional(sortField(spec.sortFields)),
    order: optional(OrderField),
    ...(search === 'none' ? {} : { q: { codec: SearchField, required: search === 'required' } }),
    ...filters,
  };
}

/**
 * The decoder of a list's query parameters (`page`, `per_page`, `sort`, `order`, `q` when
 * searchable, filters), built once per route, with the defaults of docs/lists.md (LIST_DEFAULTS).
 * Every bad parameter is named in one VALIDATION_ERROR.
 */
export function listQueryDecoder(spec: ListQuerySpec): (query: Record<string, unknown>) => ListQuery<string> {
  const shape = listQueryShape(spec);
  return (query) => {
    const { page, per_page, sort, order, q, ...filters } = decodeFields(shape, query, 'query') as Record<
      string,
      unknown
    >;
    return {
      ...listFilters(filters),
      page: (page as number | undefined) ?? LIST_DEFAULTS.page,
      perPage: (per_page as number | undefined) ?? LIST_DEFAULTS.perPage,
      sort: (sort as string | undefined) ?? LIST_DEFAULTS.sort,
      order: (order as SortOrder | undefined) ?? LIST_DEFAULTS.order,
      ...(q !== undefined ? { q: q as string } : {}),
    };
  };
}
