import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { dataOf, expectError, expectValidation, type ApiResponse, type FieldJson } from '../api.js';
import { sortFieldsOf, UNKNOWN_ID } from './descriptor.js';
import { listOf, ORDER_RULE, PAGE_RULE, PER_PAGE_RULE, Q_RULE, searchable, sleep, type RestKit } from './restKit.js';
import { createRow, expectSorted, sampleFor, sortKey, validBody, type RowJson } from './world.js';

/**
 * Lists and search, as every resource has them (docs/lists.md): the default page,
 * paging, sorting by every sortable field (ties by id), the parameters' rules, the filters of its
 * references, and (with `--search`) search.
 */
export function describeResourceLists(kit: RestKit): void {
  const { resource, world, api, token, create, list, total, walk } = kit;
  const collection = resource.collection;
  const refs = resource.fields.filter((f) => f.ref);
  const sorts = sortFieldsOf(resource);
  const page = { field: 'page', message: PAGE_RULE };
  const perPage = { field: 'per_page', message: PER_PAGE_RULE };
  const sort = { field: 'sort', message: `must be one of ${sorts.join(', ')}` };
  const order = { field: 'order', message: ORDER_RULE };
  const q = { field: 'q', message: Q_RULE };
  const pairs = (name: string, values: readonly string[], field: FieldJson): [string, FieldJson[]][] =>
    values.map((value) => [`${name}=${encodeURIComponent(value)}`, [field]]);

  describe('list', () => {
    it('answers the default page: page 1, per_page 20, created_at desc, ties by id — the page the explicit parameters give', async () => {
      while ((await total()) <= 20) await Promise.all([create(), create(), create()]);
      const { data, meta } = listOf(resource, await api().get(collection, { token: token() }));
      const count = await total();
      expect(meta).to.deep.equal({ page: 1, per_page: 20, total: count, total_pages: Math.ceil(count / 20) });
      expect(data.length).to.equal(20);
      expectSorted(data, (r) => sortKey('timestamp', r.created_at), 'desc', 'created_at desc');
      const explicit = listOf(resource, await list({ page: '1', per_page: '20', sort: 'created_at', order: 'desc' }));
      expect(explicit.data).to.deep.equal(data);
      const wide = listOf(resource, await list({ per_page: '100', sort: 'created_at', order: 'desc' }));
      expect(wide.data.slice(0, 20)).to.deep.equal(data);
    });

    it('computes total_pages as ceil(total / per_page), for any per_page', async () => {
      const count = await total();
      for (const size of [1, 3, 7, 10, count, count + 1, 100]) {
        expect(listOf(resource, await list({ per_page: String(size) })).meta, `per_page ${size}`).to.deep.equal({
          page: 1,
          per_page: size,
          total: count,
          total_pages: Math.ceil(count / size),
        });
      }
    });

    it('pages without repeating or skipping a row; a page past the end is 200 with empty data and the right meta', async () => {
      for (let n = 0; n < 4; n += 1) await create();
      const rows = await walk({ sort: 'created_at', order: 'asc' }, 3);
      expectSorted(rows, (r) => sortKey('timestamp', r.created_at), 'asc', 'created_at asc');
      const count = rows.length;
      const lastPage = Math.ceil(count / 10);
      for (const [number, size] of [
        [lastPage + 1, 10],
        [999, 3],
        [999999999, 20],
      ] as const) {
        expect(listOf(resource, await list({ page: String(number), per_page: String(size) }))).to.deep.equal({
          data: [],
          meta: { page: number, per_page: size, total: count, total_pages: Math.ceil(count / size) },
        });
      }
      const last = listOf(resource, await list({ page: String(lastPage), per_page: '10' }));
      expect(last.data.length).to.equal(count - 10 * (lastPage - 1));
    });

    it('accepts the bounds: page 1, per_page 1 and 100', async () => {
      const count = await total();
      const one = listOf(resource, await list({ page: '1', per_page: '1' }));
      expect(one.meta).to.deep.equal({ page: 1, per_page: 1, total: count, total_pages: count });
      expect(one.data).to.have.length(1);
      expect(listOf(resource, await list({ per_page: '100' })).data).to.have.length(Math.min(count, 100));
    });

    for (const name of sorts) {
      const field = resource.fields.find((f) => f.name === name);
      const kind = field?.kind ?? 'timestamp';
      for (const direction of ['asc', 'desc'] as const) {
        it(`sorts by ${name} ${direction.toUpperCase()}${field?.optional ? ', nulls last' : ''}, ties broken by id`, async () => {
          if (field && !field.ref) {
            // Ties on purpose: two rows of each sample (a unique field: four values of their own), and nulls when the field is optional.
            const values = field.unique
              ? [0, 1, 2, 3].map(() => sampleFor(world(), field, 0))
              : [field.samples[0], field.samples[1], field.samples[0], field.samples[1]];
            for (const value of values) await create({ [name]: value });
            // A read-only field holds what a create stores: null only when it has no default.
            if (field.optional && !(field.readOnly && field.default !== undefined))
              for (let n = 0; n < 2; n += 1) await create({ [name]: null });
          } else {
            // Made together, so that some share an instant and the tie is broken by id.
            await Promise.all([create(), create(), create(), create()]);
          }
          const rows = await walk({ sort: name, order: direction === 'asc' ? 'ASC' : 'desc' });
          expectSorted(rows, (r) => sortKey(kind, r[name] ?? null), direction, `${name} ${direction}`);
        });
      }
    }

    it('reads order in any case, defaults it to desc with any sort, and defaults sort to created_at with any order', async () => {
      const firstPage = async (params: Record<string, string>) =>
        listOf(resource, await list({ per_page: '100', ...params })).data;
      const name = sorts[0]!;
      const kind = resource.fields.find((f) => f.name === name)?.kind ?? 'timestamp';
      for (const [direction, spellings] of [
        ['asc', ['ASC', 'Asc']],
        ['desc', ['DESC', 'Desc']],
      ] as const) {
        const expected = await firstPage({ sort: name, order: direction });
        expectSorted(expected, (r) => sortKey(kind, r[name] ?? null), direction, `${name} ${direction}`);
        for (const spelling of spellings)
          expect(await firstPage({ sort: name, order: spelling }), spelling).to.deep.equal(expected);
      }
      expect(await firstPage({ sort: name })).to.deep.equal(await firstPage({ sort: name, order: 'desc' }));
      expect(await firstPage({ order: 'asc' })).to.deep.equal(await firstPage({ sort: 'created_at', order: 'asc' }));
    });

    it('refuses an unknown, empty or repeated sort, order, page or per_page: 400 naming each, all at once', async () => {
      const [first, second = first] = sorts as [string, ...string[]];
      const cases: [string, FieldJson[]][] = [
        ...pairs('page', ['0', '-1', 'abc', '1.5', '', '1e3', '0x10', '1000000000'], page),
        ...pairs('per_page', ['0', '101', 'abc', '-5', '2.5'], perPage),
        ...pairs('sort', ['id', 'password', '', 'version', 'createdAt', 'nope', `${first}; drop table x`], sort),
        ...pairs('order', ['up', '', 'ascending'], order),
        ['page=1&page=2', [page]],
        ['page=1&page=1', [page]],
        ['per_page=10&per_page=20', [perPage]],
        [`sort=${first}&sort=${second}`, [sort]],
        ['order=asc&order=desc', [order]],
        ['page=0&per_page=101&sort=id&order=up', [page, perPage, sort, order]],
        [`page=2&per_page=abc&sort=${first}&order=sideways`, [perPage, order]],
      ];
      for (const [query, fields] of cases) {
        const response = await list(query);
        expect(response.status, `${query}: ${response.text}`).to.equal(400);
        expectValidation(response, fields);
      }
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

  const searchField = resource.fields.find((f) => f.name === resource.search);
  if (!searchField) return;

  describe('search', () => {
    const searchPath = `${collection}/search`;
    const search = (params: Record<string, string> | string) => list(params, searchPath);
    const marker = () => `zq${randomUUID().replace(/-/g, '').slice(0, 8)}`;

    it(`finds the rows whose ${searchField.name} contains q, whatever the case, paged like the list`, async () => {
      const value = searchable(searchField, marker());
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
    });

    it('trims q; no match is 200 with data [] and total_pages 0', async () => {
      const value = searchable(searchField, marker());
      const row = await create({ [searchField.name]: value });
      expect(listOf(resource, await search({ q: `  ${value}  ` })).data.map((r) => r.id)).to.deep.equal([row.id]);
      expect(listOf(resource, await search({ q: `${value}!` }))).to.deep.equal({
        data: [],
        meta: { page: 1, per_page: 20, total: 0, total_pages: 0 },
      });
    });

    it('walked 2 a page by every sort field both ways, gives exactly its rows, in order, each once', async () => {
      // Five rows sharing q, their searched values differing in the last character (two alike), other fields too.
      const value = searchable(searchField, marker());
      const q = value.length > 2 ? value.slice(0, -1) : value;
      const mine: RowJson[] = [];
      for (const [n, which] of ([0, 1, 0, 1, 0] as const).entries()) {
        const searched = value.length > 2 ? `${q}${'bacad'[n]}` : value;
        const body = { ...(await validBody(world(), resource, which)), [searchField.name]: searched };
        mine.push(dataOf<RowJson>(await kit.post(body), 201));
        await sleep(3); // distinct creation instants, so that the default order is the reverse of creation
      }
      for (const name of sorts) {
        const kind = resource.fields.find((f) => f.name === name)?.kind ?? 'timestamp';
        for (const direction of ['asc', 'desc'] as const) {
          const rows = await walk({ q, sort: name, order: direction }, 2, searchPath);
          expect(rows.map((r) => r.id).sort(), `${name} ${direction}`).to.deep.equal(mine.map((r) => r.id).sort());
          expectSorted(rows, (r) => sortKey(kind, r[name] ?? null), direction, `${name} ${direction}`);
        }
      }
      const defaults = listOf(resource, await search({ q })).data;
      expect(defaults.map((r) => r.id)).to.deep.equal([...mine].reverse().map((r) => r.id));
    });

    it('takes q of 1 and 100 characters', async () => {
      for (const text of ['a', 'q'.repeat(100), '😀'.repeat(100)]) listOf(resource, await search({ q: text }));
    });

    it('refuses a missing, empty, blank, 101-character or repeated q: 400 naming q', async () => {
      const required = [{ field: 'q', message: 'is required' }];
      expectValidation(await api().get(searchPath, { token: token() }), required);
      expectValidation(await search('page=1'), required);
      for (const query of ['q=', 'q=%20%20%20', `q=${'q'.repeat(101)}`, 'q=a&q=b'])
        expectValidation(await search(query), [q]);
    });

    it('validates the list parameters too, all failures at once', async () => {
      expectValidation(await search('q=a&per_page=0'), [perPage]);
      expectValidation(await search('page=x&per_page=101&sort=password&order=up&q='), [page, perPage, sort, order, q]);
    });

    it('answers a q a client cannot send well-formed (invalid UTF-8, a lone surrogate) with 200, never a 500', async () => {
      // Node decodes invalid UTF-8 in the query to U+FFFD: what arrives is well-formed text.
      for (const raw of ['%ED%A0%80', '%ED%B0%80x', '%FF', '%C3']) {
        for (const row of listOf(resource, await search(`q=${raw}`)).data)
          expect(row[searchField.name], raw).to.include('\ufffd');
      }
      const sorted = await list('sort=%ED%A0%80');
      expect(sorted.status, sorted.text).to.equal(400);
    });

    it('is never taken for an id: GET without q is 400 naming q; PUT, DELETE and POST are 405 with Allow, token or not', async () => {
      expectValidation(await api().get(searchPath, { token: token() }), [{ field: 'q', message: 'is required' }]);
      const allowOf = (response: ApiResponse) => (response.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      for (const auth of [{ token: token() }, {}]) {
        for (const response of [
          await api().put(searchPath, { ...auth, json: await kit.aChange() }),
          await api().delete(searchPath, auth),
        ]) {
          expectError(response, 405, 'METHOD_NOT_ALLOWED', 'method not allowed');
          expect(allowOf(response)).to.include('GET').and.not.include('PUT').and.not.include('DELETE');
        }
        const posted = await api().post(searchPath, { ...auth, json: await validBody(world(), resource) });
        expectError(posted, 405, 'METHOD_NOT_ALLOWED', 'method not allowed');
        expect(allowOf(posted)).to.include('GET');
      }
    });
  });
}
