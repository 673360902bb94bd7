import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { dataOf, expectError, expectInvalidFields, expectValidation, type ApiResponse } from '../api.js';
import { sortFieldsOf, UNKNOWN_ID, type FieldUnderTest, type Json, type ResourceUnderTest } from './descriptor.js';
import {
  createRow,
  etagOf,
  expectRowShape,
  expectSorted,
  itemPath,
  requiredBody,
  sortKey,
  useResourceWorld,
  validBody,
  type ResourceWorld,
  type RowJson,
} from './world.js';

/** "a product", "an invoice": a noun with its indefinite article, for test names. */
const withArticle = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

interface MetaJson {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

/** A list answer: 200, `{success, data, meta}`, every row of the resource's shape. */
function listOf(resource: ResourceUnderTest, response: ApiResponse): { data: RowJson[]; meta: MetaJson } {
  expect(response.status, response.text).to.equal(200);
  const body = response.body as { success: boolean; data: RowJson[]; meta: MetaJson };
  expect(Object.keys(body).sort(), response.text).to.deep.equal(['data', 'meta', 'success']);
  expect(body.success).to.equal(true);
  for (const row of body.data) expectRowShape(resource, row);
  return { data: body.data, meta: body.meta };
}

const withQuery = (path: string, params: Record<string, string>): string =>
  `${path}?${new URLSearchParams(params).toString()}`;

/** A value of a searchable string field starting with `marker`, as long as a valid sample (so within the field's bounds). */
export const searchable = (field: FieldUnderTest, marker: string): string => {
  const sample = field.samples[0] as string;
  return `${marker}${sample}`.slice(0, sample.length);
};

/**
 * The REST behaviour every resource has (docs/errors.md, docs/lists.md and README: Add a resource), for the resource described:
 * create, get, list, sort, filters, search, partial update, If-Match, delete, the 404s, every
 * refused value, dangling references and still-referenced deletes.
 */
export function describeResourceRest(resource: ResourceUnderTest): void {
  const collection = resource.collection;
  const notFound = `${resource.human} not found`;
  const refs = resource.fields.filter((f) => f.ref);
  const searchField = resource.fields.find((f) => f.name === resource.search);

  describe(`${collection} (REST, end to end)`, function () {
    this.timeout(60_000);
    const world = useResourceWorld();
    const api = () => world().api;
    const token = () => world().token;
    const get = (id: string) => api().get(itemPath(resource, id), { token: token() });
    const put = (id: string, json: unknown, headers?: Record<string, string>) =>
      api().put(itemPath(resource, id), { token: token(), json, ...(headers ? { headers } : {}) });
    const create = (overrides: Record<string, Json> = {}) => createRow(world(), resource, overrides);

    /** Every row of the list with these parameters, page by page, checking every page's meta. */
    async function walk(params: Record<string, string>, perPage = 7): Promise<RowJson[]> {
      const first = listOf(
        resource,
        await api().get(withQuery(collection, { ...params, per_page: String(perPage) }), { token: token() }),
      ).meta;
      expect(first.total_pages).to.equal(Math.ceil(first.total / perPage));
      const rows: RowJson[] = [];
      for (let page = 1; page <= first.total_pages; page += 1) {
        const answer = await api().get(
          withQuery(collection, { ...params, per_page: String(perPage), page: String(page) }),
          { token: token() },
        );
        const { data, meta } = listOf(resource, answer);
        expect(meta).to.deep.equal({ ...first, page });
        rows.push(...data);
      }
      expect(rows.length).to.equal(first.total);
      expect(new Set(rows.map((r) => r.id)).size, 'a row repeated across pages').to.equal(rows.length);
      return rows;
    }

    describe('create and get', () => {
      it('answers 201 with the row, ETag "1", and GET answers the same row and ETag', async () => {
        const body = await validBody(world(), resource);
        const response = await api().post(collection, { token: token(), json: body });
        const row = dataOf<RowJson>(response, 201);
        expectRowShape(resource, row);
        expect(row).to.deep.include(body);
        expect(row.created_at).to.equal(row.updated_at);
        expect(etagOf(response)).to.equal('"1"');
        const fetched = await get(row.id);
        expect(dataOf<RowJson>(fetched)).to.deep.equal(row);
        expect(etagOf(fetched)).to.equal('"1"');
      });

      it('stores null for every optional field left out, and needs every required one ("is required", in field order)', async () => {
        const row = dataOf<RowJson>(
          await api().post(collection, { token: token(), json: await requiredBody(world(), resource) }),
          201,
        );
        for (const field of resource.fields.filter((f) => f.optional))
          expect(row[field.name], field.name).to.equal(null);
        const required = resource.fields.filter((f) => !f.optional);
        expectValidation(
          await api().post(collection, { token: token(), json: {} }),
          required.map((f) => ({ field: f.name, message: 'is required' })),
        );
      });

      it('refuses a body that is not a JSON object: 400 naming body', async () => {
        for (const json of [[], 'text', 42, null]) {
          expectValidation(await api().post(collection, { token: token(), json }), [
            { field: 'body', message: 'must be a JSON object' },
          ]);
        }
      });

      for (const field of resource.fields) {
        for (const invalid of field.invalid) {
          it(`refuses ${field.name} ${JSON.stringify(invalid.value)?.slice(0, 40)}: 400 "${invalid.message}", nothing stored`, async () => {
            const body = { ...(await validBody(world(), resource)), [field.name]: invalid.value };
            const before = (await walk({})).length;
            expectValidation(await api().post(collection, { token: token(), json: body }), [
              { field: field.name, message: invalid.message },
            ]);
            expect((await walk({})).length).to.equal(before);
          });
        }
        if (!field.optional) {
          it(`refuses null for the required ${field.name}`, async () => {
            const body = { ...(await validBody(world(), resource)), [field.name]: null };
            expectInvalidFields(await api().post(collection, { token: token(), json: body }), [field.name]);
          });
        }
      }

      it('answers 404 NOT_FOUND for an unknown id and for one that is not a UUID', async () => {
        expectError(await get(UNKNOWN_ID), 404, 'NOT_FOUND', notFound, { detail: `id: ${UNKNOWN_ID}` });
        expectError(await get('abc'), 404, 'NOT_FOUND', notFound, { detail: 'id: abc' });
      });
    });

    describe('list', () => {
      it('answers the default page: page 1, per_page 20, newest first', async () => {
        for (let n = 0; n < 3; n += 1) await create();
        const { data, meta } = listOf(resource, await api().get(collection, { token: token() }));
        expect(meta.page).to.equal(1);
        expect(meta.per_page).to.equal(20);
        expect(meta.total_pages).to.equal(Math.ceil(meta.total / 20));
        expect(data.length).to.equal(Math.min(20, meta.total));
        expectSorted(data, (r) => sortKey('timestamp', r.created_at), 'desc', 'created_at desc');
      });

      it('pages without repeating or skipping a row, and answers an empty page past the end', async () => {
        for (let n = 0; n < 4; n += 1) await create();
        const rows = await walk({ sort: 'created_at', order: 'asc' }, 3);
        expectSorted(rows, (r) => sortKey('timestamp', r.created_at), 'asc', 'created_at asc');
        const past = listOf(
          resource,
          await api().get(withQuery(collection, { page: '999', per_page: '3' }), { token: token() }),
        );
        expect(past.data).to.deep.equal([]);
      });

      for (const name of sortFieldsOf(resource)) {
        const field = resource.fields.find((f) => f.name === name);
        const kind = field?.kind ?? 'timestamp';
        for (const order of ['asc', 'desc'] as const) {
          it(`sorts by ${name} ${order.toUpperCase()}${field?.optional ? ', nulls last' : ''}, ties broken by id`, async () => {
            if (field && !field.ref) {
              // Ties on purpose: two rows of each sample, and nulls when the field is optional.
              for (const value of [field.samples[0], field.samples[1], field.samples[0], field.samples[1]])
                await create({ [name]: value });
              if (field.optional) for (let n = 0; n < 2; n += 1) await create({ [name]: null });
            } else {
              for (let n = 0; n < 3; n += 1) await create();
            }
            const rows = await walk({ sort: name, order: order === 'asc' ? 'ASC' : 'desc' });
            expectSorted(rows, (r) => sortKey(kind, r[name] ?? null), order, `${name} ${order}`);
          });
        }
      }

      it('refuses an unknown sort field, order, page or per_page: 400 naming each', async () => {
        const sorts = sortFieldsOf(resource).join(', ');
        expectValidation(await api().get(`${collection}?sort=nope`, { token: token() }), [
          { field: 'sort', message: `must be one of ${sorts}` },
        ]);
        expectValidation(await api().get(`${collection}?order=up`, { token: token() }), [
          { field: 'order', message: 'must be asc or desc' },
        ]);
        expectInvalidFields(await api().get(`${collection}?page=0&per_page=101`, { token: token() }), [
          'page',
          'per_page',
        ]);
      });

      for (const field of refs) {
        it(`filters by ${field.name}=<id>`, async () => {
          const parent = field.ref!();
          const first = (await createRow(world(), parent)).id;
          const second = (await createRow(world(), parent)).id;
          const mine = [await create({ [field.name]: first }), await create({ [field.name]: first })];
          await create({ [field.name]: second });
          const rows = await walk({ [field.name]: first, sort: 'created_at', order: 'asc' });
          expect(rows.map((r) => r.id).sort()).to.deep.equal(mine.map((r) => r.id).sort());
          for (const row of rows) expect(row[field.name]).to.equal(first);
          expect((await walk({ [field.name]: UNKNOWN_ID })).length).to.equal(0);
        });
      }
    });

    if (searchField) {
      describe('search', () => {
        const search = (params: Record<string, string>) =>
          api().get(withQuery(`${collection}/search`, params), { token: token() });

        it(`finds the rows whose ${searchField.name} contains q, whatever the case, paged like the list`, async () => {
          const marker = `zq${randomUUID().replace(/-/g, '').slice(0, 8)}`;
          const value = searchable(searchField, marker);
          const found = [
            await create({ [searchField.name]: value }),
            await create({ [searchField.name]: value.toUpperCase() }),
          ];
          await create();
          const { data, meta } = listOf(
            resource,
            await search({ q: value.toLowerCase(), sort: 'created_at', order: 'asc' }),
          );
          expect(data.map((r) => r.id).sort()).to.deep.equal(found.map((r) => r.id).sort());
          expect(meta).to.deep.equal({ page: 1, per_page: 20, total: 2, total_pages: 1 });
          expect(listOf(resource, await search({ q: `${value}!` })).meta.total).to.equal(0);
        });

        it('needs q (1 to 100 characters): 400 naming q', async () => {
          expectInvalidFields(await search({}), ['q']);
          expectInvalidFields(await search({ q: 'x'.repeat(101) }), ['q']);
        });
      });
    }

    describe('partial update', () => {
      for (const field of resource.fields) {
        it(`sets only ${field.name} when only it is sent, bumps the version (ETag "2") and updated_at`, async () => {
          const row = await create();
          const value = field.ref ? (await createRow(world(), field.ref())).id : field.samples[1];
          const response = await put(row.id, { [field.name]: value });
          const updated = dataOf<RowJson>(response);
          expect(etagOf(response)).to.equal('"2"');
          expect(updated).to.deep.equal({ ...row, [field.name]: value, updated_at: updated.updated_at });
          expect(Date.parse(updated.updated_at)).to.be.at.least(Date.parse(row.updated_at));
          expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(updated);
        });

        if (field.optional) {
          it(`clears ${field.name} with null`, async () => {
            const row = await create();
            const updated = dataOf<RowJson>(await put(row.id, { [field.name]: null }));
            expect(updated[field.name]).to.equal(null);
            expect(dataOf<RowJson>(await get(row.id))[field.name]).to.equal(null);
          });
        } else {
          it(`refuses null for ${field.name}, changing nothing`, async () => {
            const row = await create();
            expectInvalidFields(await put(row.id, { [field.name]: null }), [field.name]);
            expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
          });
        }

        for (const invalid of field.invalid) {
          it(`refuses ${field.name} ${JSON.stringify(invalid.value)?.slice(0, 40)} on update, changing nothing`, async () => {
            const row = await create();
            expectValidation(await put(row.id, { [field.name]: invalid.value }), [
              { field: field.name, message: invalid.message },
            ]);
            expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
          });
        }
      }

      it('answers an empty change with the row untouched', async () => {
        const row = await create();
        const response = await put(row.id, {});
        expect(dataOf<RowJson>(response)).to.deep.equal(row);
        expect(etagOf(response)).to.equal('"1"');
      });

      it('answers 404 for an unknown or non-UUID id', async () => {
        const body = await validBody(world(), resource, 1);
        expectError(await put(UNKNOWN_ID, body), 404, 'NOT_FOUND', notFound, { detail: `id: ${UNKNOWN_ID}` });
        expectError(await put('abc', body), 404, 'NOT_FOUND', notFound, { detail: 'id: abc' });
      });
    });

    describe('versions: ETag and If-Match', () => {
      it('updates at the named version, and answers 412 PRECONDITION_FAILED for a stale one, writing nothing', async () => {
        const row = await create();
        const body = await validBody(world(), resource, 1);
        const updated = await put(row.id, body, { 'If-Match': '"1"' });
        expect(etagOf(updated)).to.equal('"2"');
        const stale = await put(row.id, await validBody(world(), resource), { 'If-Match': '"1"' });
        expect(stale.status, stale.text).to.equal(412);
        expect((stale.body as { error: { code: string } }).error.code).to.equal('PRECONDITION_FAILED');
        expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(dataOf<RowJson>(updated));
      });

      it('deletes only at the named version: 412 for a stale one, 204 for the current one', async () => {
        const row = await create();
        await put(row.id, await validBody(world(), resource, 1));
        const stale = await api().delete(itemPath(resource, row.id), {
          token: token(),
          headers: { 'If-Match': '"1"' },
        });
        expect(stale.status, stale.text).to.equal(412);
        expect((await get(row.id)).status).to.equal(200);
        const current = await api().delete(itemPath(resource, row.id), {
          token: token(),
          headers: { 'If-Match': '"2"' },
        });
        expect(current.status, current.text).to.equal(204);
      });
    });

    describe('delete', () => {
      it('answers 204 with no body; then GET, PUT and DELETE answer 404', async () => {
        const row = await create();
        const response = await api().delete(itemPath(resource, row.id), { token: token() });
        expect(response.status, response.text).to.equal(204);
        expect(response.text).to.equal('');
        const gone = { detail: `id: ${row.id}` };
        expectError(await get(row.id), 404, 'NOT_FOUND', notFound, gone);
        expectError(await put(row.id, await validBody(world(), resource, 1)), 404, 'NOT_FOUND', notFound, gone);
        expectError(
          await api().delete(itemPath(resource, row.id), { token: token() }),
          404,
          'NOT_FOUND',
          notFound,
          gone,
        );
      });

      it('answers 404 for a non-UUID id', async () => {
        expectError(await api().delete(itemPath(resource, 'abc'), { token: token() }), 404, 'NOT_FOUND', notFound, {
          detail: 'id: abc',
        });
      });
    });

    for (const field of refs) {
      describe(`the reference ${field.name}`, () => {
        const target = () => field.ref!();

        it(`refuses ${withArticle(field.name)} naming no row: 400 on ${field.name}, on create and on update`, async () => {
          const message = `must name an existing ${target().human.toLowerCase()}`;
          const body = { ...(await validBody(world(), resource)), [field.name]: UNKNOWN_ID };
          expectValidation(await api().post(collection, { token: token(), json: body }), [
            { field: field.name, message },
          ]);
          const row = await create();
          expectValidation(await put(row.id, { [field.name]: UNKNOWN_ID }), [{ field: field.name, message }]);
          expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
        });

        it(`answers 409 CONFLICT for deleting a row ${withArticle(resource.human.toLowerCase())} still names, and deletes it once none does`, async () => {
          const parent = await createRow(world(), target());
          const row = await create({ [field.name]: parent.id });
          const parentPath = itemPath(target(), parent.id);
          const refused = await api().delete(parentPath, { token: token() });
          expectError(refused, 409, 'CONFLICT', `${target().human} is still referenced`, {
            detail: `id: ${parent.id}`,
          });
          expect((await api().get(parentPath, { token: token() })).status).to.equal(200);
          expect((await api().delete(itemPath(resource, row.id), { token: token() })).status).to.equal(204);
          expect((await api().delete(parentPath, { token: token() })).status).to.equal(204);
        });
      });
    }
  });
}

export type { ResourceWorld };
