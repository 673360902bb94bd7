/**
 * What the shared REST suites (rest.ts, restLists.ts, restVersions.ts) share: the list answer's
 * shape, the rules every resource's list parameters keep, and the requests of one resource as the
 * admin of a running world.
 */

import { expect } from 'chai';
import { dataOf, expectError, type ApiResponse } from '../api.js';
import type { FieldUnderTest, Json, ResourceUnderTest } from './descriptor.js';
import { createRow, etagOf, expectRowShape, itemPath, sampleFor, type ResourceWorld, type RowJson } from './world.js';

export interface MetaJson {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

/** The list parameters' rules (docs/lists.md), the same for every resource. */
export const PAGE_RULE = 'must be an integer from 1 to 999999999';
export const PER_PAGE_RULE = 'must be an integer from 1 to 100';
export const ORDER_RULE = 'must be asc or desc';
export const Q_RULE = 'must be 1 to 100 characters';

export const JSON_HEADERS = { 'Content-Type': 'application/json' };

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** "a product", "an invoice": a noun with its indefinite article, for test names. */
export const withArticle = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** `path?a=1&b=2`; a `string` query is sent as written (a parameter repeated or left empty). */
export const withQuery = (path: string, params: Record<string, string> | string): string =>
  `${path}?${typeof params === 'string' ? params : new URLSearchParams(params).toString()}`;

/** A list answer: 200, `{success, data, meta}`, every row of the resource's shape. */
export function listOf(resource: ResourceUnderTest, response: ApiResponse): { data: RowJson[]; meta: MetaJson } {
  expect(response.status, response.text).to.equal(200);
  const body = response.body as { success: boolean; data: RowJson[]; meta: MetaJson };
  expect(Object.keys(body).sort(), response.text).to.deep.equal(['data', 'meta', 'success']);
  expect(body.success).to.equal(true);
  for (const row of body.data) expectRowShape(resource, row);
  return { data: body.data, meta: body.meta };
}

/** The message a field's rule refuses with: every value the descriptor lists as refused gives it. */
export function ruleOf(field: FieldUnderTest): string {
  const message = field.invalid[0]?.message;
  if (message === undefined) throw new Error(`${field.name}: the descriptor lists no refused value`);
  return message;
}

/** Fields whose values are text the service trims and checks for well-formed characters. */
export const isText = (field: FieldUnderTest): boolean => field.kind === 'string' || field.kind === 'text';

/** A value of a searchable string field starting with `marker`, as long as a valid sample (so within the field's bounds). */
export const searchable = (field: FieldUnderTest, marker: string): string => {
  const sample = field.samples[0] as string;
  return `${marker}${sample}`.slice(0, sample.length);
};

/** The requests of one resource, as the admin of a running world. */
export function restKit(resource: ResourceUnderTest, world: () => ResourceWorld) {
  const collection = resource.collection;
  const api = () => world().api;
  const token = () => world().token;
  const notFound = `${resource.human} not found`;
  const stale = `${resource.human.toLowerCase()} is not at the expected version; read it again`;
  const put = (id: string, json: unknown, headers?: Record<string, string>) =>
    api().put(itemPath(resource, id), { token: token(), json, ...(headers ? { headers } : {}) });
  const list = (params: Record<string, string> | string, path = collection) =>
    api().get(withQuery(path, params), { token: token() });
  /** A value of `field` other than the first sample: its second one (unique: one of its own), or (a ref) a new row of the resource it names. */
  const otherValue = async (field: FieldUnderTest): Promise<Json> =>
    field.ref ? (await createRow(world(), field.ref())).id : sampleFor(world(), field, 1);

  return {
    resource,
    world,
    api,
    token,
    notFound,
    get: (id: string) => api().get(itemPath(resource, id), { token: token() }),
    post: (json: unknown) => api().post(collection, { token: token(), json }),
    postRaw: (raw: string, headers: Record<string, string> = JSON_HEADERS) =>
      api().post(collection, { token: token(), raw, headers }),
    put,
    putRaw: (id: string, raw: string, headers: Record<string, string> = JSON_HEADERS) =>
      api().put(itemPath(resource, id), { token: token(), raw, headers }),
    putIf: (id: string, ifMatch: string, json: unknown) => put(id, json, { 'If-Match': ifMatch }),
    remove: (id: string, ifMatch?: string) =>
      api().delete(itemPath(resource, id), {
        token: token(),
        ...(ifMatch === undefined ? {} : { headers: { 'If-Match': ifMatch } }),
      }),
    /** A new row (as the admin) from a valid body with `overrides`. */
    create: (overrides: Record<string, Json> = {}) => createRow(world(), resource, overrides),
    list,
    /** How many rows the list holds. */
    total: async (): Promise<number> => listOf(resource, await list({ per_page: '1' })).meta.total,
    otherValue,
    /** A valid one-field change. */
    aChange: async (): Promise<Record<string, Json>> => {
      const field = resource.fields[0]!;
      return { [field.name]: await otherValue(field) };
    },
    /** Asserts 412 PRECONDITION_FAILED for the row, with no ETag. */
    expectStale: (response: ApiResponse, id: string) => {
      expectError(response, 412, 'PRECONDITION_FAILED', stale, { detail: `id: ${id}` });
      expect(response.headers.get('etag'), 'a 412 carries no ETag').to.equal(null);
    },
    /** Every row of the list (or search) with these parameters, page by page, checking each page's meta and length. */
    walk: async (params: Record<string, string>, perPage = 7, path = collection): Promise<RowJson[]> => {
      const first = listOf(resource, await list({ ...params, per_page: String(perPage) }, path)).meta;
      expect(first.total_pages).to.equal(Math.ceil(first.total / perPage));
      const rows: RowJson[] = [];
      for (let page = 1; page <= first.total_pages; page += 1) {
        const { data, meta } = listOf(
          resource,
          await list({ ...params, per_page: String(perPage), page: String(page) }, path),
        );
        expect(meta).to.deep.equal({ ...first, page });
        expect(data.length, `page ${page}`).to.equal(Math.min(perPage, first.total - perPage * (page - 1)));
        rows.push(...data);
      }
      expect(rows.length).to.equal(first.total);
      expect(new Set(rows.map((r) => r.id)).size, 'a row repeated across pages').to.equal(rows.length);
      return rows;
    },
    /** The row's current state, as GET answers it. */
    current: async (id: string): Promise<RowJson> =>
      dataOf<RowJson>(await api().get(itemPath(resource, id), { token: token() })),
    etagOf,
  };
}

export type RestKit = ReturnType<typeof restKit>;
