import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { dataOf, expectError, expectValidation } from '../api.js';
import { UPLOADED_ONLY } from '../../../src/domain/shared/fieldRules.js';
import { UNKNOWN_ID, type Json, type ResourceUnderTest } from './descriptor.js';
import { isText, listOf, restKit, ruleOf, searchable, sleep, withArticle, withQuery } from './restKit.js';
import { describeResourceLists } from './restLists.js';
import { describeConcurrentUpdatesOnEngines, describeResourceVersions } from './restVersions.js';
import {
  createRow,
  etagOf,
  expectRowShape,
  isRequired,
  itemPath,
  requiredBody,
  useResourceWorld,
  validBody,
  withoutFiles,
  type ResourceWorld,
  type RowJson,
} from './world.js';

/**
 * The REST behaviour every resource has (docs/errors.md, docs/lists.md, docs/http.md and README: Add a resource), for
 * the resource described: create, get, request bodies, partial update, delete, the 404s, every
 * refused value, dangling references and still-referenced deletes; lists and search (restLists.ts);
 * ETag, If-Match and concurrent writes, on SQLite files and PostgreSQL too (restVersions.ts).
 */
export function describeResourceRest(resource: ResourceUnderTest): void {
  const collection = resource.collection;
  const refs = resource.fields.filter((f) => f.ref);
  const searchField = resource.fields.find((f) => f.name === resource.search);
  const required = resource.fields.filter(isRequired);
  const refusable = resource.fields.filter((f) => f.invalid.length > 0);

  describe(`${collection} (REST, end to end)`, function () {
    this.timeout(60_000);
    const world = useResourceWorld();
    const kit = restKit(resource, world);
    const { api, token, notFound, get, post, postRaw, put, putRaw, remove, create, list, total, otherValue, aChange } =
      kit;

    // Runs first, on the freshly started service: no row of the resource exists yet.
    describe('an empty store', () => {
      it(`lists nothing: 200, data [], total 0 and total_pages 0, on any page${searchField ? ', and so does search' : ''}`, async () => {
        const empty = (page: number, perPage: number) => ({ page, per_page: perPage, total: 0, total_pages: 0 });
        expect(listOf(resource, await api().get(collection, { token: token() }))).to.deep.equal({
          data: [],
          meta: empty(1, 20),
        });
        expect(listOf(resource, await list({ page: '3', per_page: '5' }))).to.deep.equal({
          data: [],
          meta: empty(3, 5),
        });
        if (searchField) {
          expect(listOf(resource, await list({ q: 'a' }, `${collection}/search`))).to.deep.equal({
            data: [],
            meta: empty(1, 20),
          });
        }
      });
    });

    describe('create and get', () => {
      it('answers 201 with the row in {success, data}, ETag "1" and the item path in Location, and GET there answers the same row and ETag', async () => {
        const body = await validBody(world(), resource);
        const before = Date.now();
        const response = await post(body);
        const row = dataOf<RowJson>(response, 201);
        expect(Object.keys(response.body as object).sort()).to.deep.equal(['data', 'success']);
        expectRowShape(resource, row);
        expect(row).to.deep.include(body);
        expect(row.created_at).to.equal(row.updated_at);
        expect(Date.parse(row.created_at)).to.be.within(before - 5_000, Date.now() + 5_000);
        expect(etagOf(response)).to.equal('"1"');
        expect(response.headers.get('location')).to.equal(`${collection}/${row.id}`);
        const fetched = await get(row.id);
        expect(Object.keys(fetched.body as object).sort()).to.deep.equal(['data', 'success']);
        expect(dataOf<RowJson>(fetched)).to.deep.equal(row);
        expect(etagOf(fetched)).to.equal('"1"');
      });

      it('gives each of 5 concurrent creates its own id', async () => {
        const rows = await Promise.all([1, 2, 3, 4, 5].map(() => create()));
        expect(new Set(rows.map((r) => r.id)).size).to.equal(5);
      });

      it('stores null for every optional field left out (its default, where it has one), and needs every required one ("is required", in field order)', async () => {
        const row = dataOf<RowJson>(await post(await requiredBody(world(), resource)), 201);
        for (const field of resource.fields.filter((f) => !isRequired(f)))
          expect(row[field.name], field.name).to.deep.equal(field.default ?? null);
        expectValidation(
          await post({}),
          required.map((f) => ({ field: f.name, message: 'is required' })),
        );
        const body = await validBody(world(), resource);
        for (const field of required) {
          const others = Object.fromEntries(Object.entries(body).filter(([name]) => name !== field.name));
          expectValidation(await post(others), [{ field: field.name, message: 'is required' }]);
        }
      });

      for (const field of resource.fields) {
        for (const invalid of field.invalid) {
          it(`refuses ${field.name} ${JSON.stringify(invalid.value)?.slice(0, 40)}: 400 "${invalid.message}", nothing stored`, async () => {
            const body = { ...(await validBody(world(), resource)), [field.name]: invalid.value };
            const before = await total();
            expectValidation(await post(body), [{ field: field.name, message: invalid.message }]);
            expect(await total()).to.equal(before);
          });
        }
        if (!field.optional) {
          it(`refuses null for the required ${field.name}: 400 "${ruleOf(field)}"`, async () => {
            const body = { ...(await validBody(world(), resource)), [field.name]: null };
            expectValidation(await post(body), [{ field: field.name, message: ruleOf(field) }]);
          });
        }
        // Objects and arrays, empty or holding a valid value, and booleans (unless it is one).
        const wrong: Json[] = [
          {},
          { value: field.samples[0] },
          [],
          [field.samples[0]],
          ...(field.kind === 'boolean' ? [] : [true, false]),
        ];
        it(`refuses ${field.name} of a JSON type it never takes (objects, arrays${field.kind === 'boolean' ? '' : ', booleans'}): 400 "${ruleOf(field)}", on create and update`, async () => {
          const body = await validBody(world(), resource);
          const row = await create();
          const fields = [{ field: field.name, message: ruleOf(field) }];
          for (const value of wrong) {
            expectValidation(await post({ ...body, [field.name]: value }), fields);
            expectValidation(await put(row.id, { [field.name]: value }), fields);
          }
          expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
        });
      }

      for (const field of resource.fields.filter((f) => f.readOnly?.other !== undefined)) {
        const other = field.readOnly!.other!;
        it(`refuses the read-only ${field.name} set to anything but what a create stores: 400 "is read-only" on create and update; its current value sent back is accepted`, async () => {
          const before = await total();
          const body = await validBody(world(), resource);
          expectValidation(await post({ ...body, [field.name]: other }), [
            { field: field.name, message: 'is read-only' },
          ]);
          expect(await total()).to.equal(before);
          const row = await create();
          expect(row[field.name]).to.deep.equal(field.default ?? null);
          expectValidation(await put(row.id, { [field.name]: other }), [
            { field: field.name, message: 'is read-only' },
          ]);
          expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
          const sentBack = dataOf<RowJson>(await put(row.id, withoutFiles(resource, row)));
          expect(sentBack).to.deep.equal({ ...row, updated_at: sentBack.updated_at });
        });
      }

      for (const file of resource.files ?? []) {
        it(`refuses the file ${file.name} in a body, whatever its value (null too): 400 "${UPLOADED_ONLY}" on create and update, nothing changed; a row answers it null`, async () => {
          const refused = [{ field: file.name, message: UPLOADED_ONLY }];
          const values: Json[] = [null, 'x', { url: 'https://example.com/f', size: 1 }];
          const before = await total();
          const body = await validBody(world(), resource);
          for (const value of values) expectValidation(await post({ ...body, [file.name]: value }), refused);
          expect(await total()).to.equal(before);
          const row = await create();
          expect(row[file.name]).to.equal(null);
          for (const value of values) expectValidation(await put(row.id, { [file.name]: value }), refused);
          expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
        });
      }

      it('lists every failing field at once, in field order', async () => {
        const body: Record<string, Json> = await validBody(world(), resource);
        for (const field of refusable) body[field.name] = field.invalid[0]!.value;
        expectValidation(
          await post(body),
          refusable.map((f) => ({ field: f.name, message: f.invalid[0]!.message })),
        );
        // A refused value and missing fields together.
        const [first, ...others] = required;
        if (first) {
          expectValidation(await post({ [first.name]: null }), [
            { field: first.name, message: ruleOf(first) },
            ...others.map((f) => ({ field: f.name, message: 'is required' })),
          ]);
        }
      });

      it('ignores unknown fields, id, timestamps and version among them', async () => {
        const body = await validBody(world(), resource);
        const response = await post({
          ...body,
          id: 'mine',
          created_at: '2000-01-01T00:00:00Z',
          updated_at: '2000-01-01T00:00:00Z',
          version: 99,
          not_a_field: 'red',
        });
        const row = dataOf<RowJson>(response, 201);
        expectRowShape(resource, row);
        expect(row).to.deep.include(body);
        expect(row.id).not.to.equal('mine');
        expect(Date.parse(row.created_at)).to.be.greaterThan(Date.parse('2020-01-01T00:00:00Z'));
        expect(row.updated_at).to.equal(row.created_at);
        expect(etagOf(response)).to.equal('"1"');
        expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
      });

      for (const field of resource.fields.filter((f) => isText(f) && !f.readOnly)) {
        const sample = field.samples[0] as string;
        const head = [...sample].slice(0, -1).join('');

        it(`trims ${field.name} before checking and storing it, inner spaces kept, on create and update`, async () => {
          const row = await create({ [field.name]: `  \t${sample} \n` });
          expect(row[field.name]).to.equal(sample);
          const other = field.samples[1] as string;
          expect(dataOf<RowJson>(await put(row.id, { [field.name]: ` ${other}\t` }))[field.name]).to.equal(other);
          expect(dataOf<RowJson>(await get(row.id))[field.name]).to.equal(other);
        });

        it(`refuses ${field.name} with a lone surrogate, on create and update, storing nothing; a surrogate pair is one character`, async () => {
          const lone = [{ field: field.name, message: 'must not contain unpaired surrogates' }];
          const before = await total();
          // JSON.stringify writes a lone surrogate as the escape `\ud800`, the way a client sends it.
          for (const value of [`${head}\ud800`, `\udc00${head}`, `${head.slice(0, 1)}\udbff${head.slice(1)}`])
            expectValidation(await post({ ...(await validBody(world(), resource)), [field.name]: value }), lone);
          expect(await total()).to.equal(before);
          const row = await create();
          expectValidation(await put(row.id, { [field.name]: `${head}\ud800` }), lone);
          expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
          expect((await create({ [field.name]: `${head}\ud83d\udd8a` }))[field.name]).to.equal(`${head}🖊`);
        });

        if (field.kind === 'string') {
          it(`refuses invisible characters in ${field.name} (zero-width, bidi controls, BOM, soft hyphen), even at its ends, on create and update`, async () => {
            const invisible = [{ field: field.name, message: 'must not contain invisible characters' }];
            const [a, b] = [sample.slice(0, 1), sample.slice(1)];
            for (const value of [
              `${a}\u200b${b}`,
              `${sample}\u200d`,
              `\u202e${sample}`,
              `${a}\u2066${b}\u2069`,
              `\ufeff${sample}`,
              `${a}\u00ad${b}`,
              `${sample}\u200e`,
            ]) {
              expectValidation(await post({ ...(await validBody(world(), resource)), [field.name]: value }), invisible);
            }
            const row = await create();
            expectValidation(await put(row.id, { [field.name]: `${a}\u2060${b}` }), invisible);
            expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
          });
        }
      }

      it('answers 404 NOT_FOUND for an unknown id and for any id that is not a UUID, never 400 or 500', async () => {
        expectError(await get(UNKNOWN_ID), 404, 'NOT_FOUND', notFound, { detail: `id: ${UNKNOWN_ID}` });
        for (const id of [
          'abc',
          '1',
          "' or 1=1",
          "1' OR '1'='1",
          '%',
          '00000000-0000-0000-0000-00000000000g',
          `${randomUUID()}x`,
        ]) {
          expectError(await get(id), 404, 'NOT_FOUND', notFound, { detail: `id: ${id}` });
        }
      });

      it('answers an id holding invalid UTF-8 (a percent-encoded lone surrogate) like any other: 404 naming it as sent', async () => {
        for (const raw of ['%ED%A0%80', 'a%ED%B0%80', '%FF']) {
          expectError(await api().get(`${collection}/${raw}`, { token: token() }), 404, 'NOT_FOUND', notFound, {
            detail: `id: ${raw}`,
          });
        }
      });
    });

    describe('request bodies (create and update)', () => {
      const notObject = [{ field: 'body', message: 'must be a JSON object' }];

      it('refuses a body that is not a JSON object, or no body: 400 naming body, nothing stored or changed', async () => {
        const row = await create();
        const before = await total();
        const inArray = JSON.stringify([await validBody(world(), resource)]);
        for (const raw of ['[]', '"text"', '42', 'null', 'true', inArray]) {
          expectValidation(await postRaw(raw), notObject);
          expectValidation(await putRaw(row.id, raw), notObject);
        }
        expectValidation(await api().post(collection, { token: token() }), notObject);
        expectValidation(await api().put(itemPath(resource, row.id), { token: token() }), notObject);
        expect(await total()).to.equal(before);
        expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
      });

      it('answers malformed JSON with 400 BAD_REQUEST "invalid request body", nothing stored or changed', async () => {
        const name = resource.fields[0]!.name;
        const row = await create();
        const before = await total();
        for (const raw of [`{"${name}": `, `{${name}: "x"}`, `{'${name}': 'x'}`, `{"${name}": NaN}`]) {
          expectError(await postRaw(raw), 400, 'BAD_REQUEST', 'invalid request body');
          expectError(await putRaw(row.id, raw), 400, 'BAD_REQUEST', 'invalid request body');
        }
        expect(await total()).to.equal(before);
        expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
      });

      it('answers a non-JSON content type with 415 UNSUPPORTED_MEDIA_TYPE; JSON with a charset is JSON', async () => {
        const row = await create();
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
          const headers = { 'Content-Type': type };
          for (const response of [await postRaw('a=1', headers), await putRaw(row.id, 'a=1', headers)])
            expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE', 'request body must be application/json');
        }
        expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
        const body = JSON.stringify(await validBody(world(), resource));
        dataOf<RowJson>(await postRaw(body, { 'Content-Type': 'application/json; charset=utf-8' }), 201);
      });
    });

    describeResourceLists(kit);

    describe('partial update', () => {
      for (const field of resource.fields) {
        it(`sets only ${field.name} when only it is sent, bumps the version (ETag "2") and updated_at`, async () => {
          const row = await create();
          const value = await otherValue(field);
          await sleep(5);
          const response = await put(row.id, { [field.name]: value });
          const updated = dataOf<RowJson>(response);
          expect(etagOf(response)).to.equal('"2"');
          expect(updated).to.deep.equal({ ...row, [field.name]: value, updated_at: updated.updated_at });
          expect(Date.parse(updated.updated_at)).to.be.greaterThan(Date.parse(row.updated_at));
          expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(updated);
        });

        if (field.optional && !(field.readOnly && field.default !== undefined)) {
          it(`clears ${field.name} with null`, async () => {
            const row = await create();
            const updated = dataOf<RowJson>(await put(row.id, { [field.name]: null }));
            expect(updated[field.name]).to.equal(null);
            expect(dataOf<RowJson>(await get(row.id))[field.name]).to.equal(null);
          });
        } else if (!field.optional) {
          it(`refuses null for ${field.name}, changing nothing`, async () => {
            const row = await create();
            expectValidation(await put(row.id, { [field.name]: null }), [
              { field: field.name, message: ruleOf(field) },
            ]);
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

      it('sets every field sent at once, ignoring unknown ones; each change moves updated_at, never created_at', async () => {
        const row = await create();
        await sleep(5);
        const body = await validBody(world(), resource, 1);
        const first = dataOf<RowJson>(
          await put(row.id, { ...body, not_a_field: 'ignored', created_at: '2000-01-01T00:00:00Z' }),
        );
        expect(first).to.deep.equal({ ...row, ...body, updated_at: first.updated_at });
        expect(Date.parse(first.updated_at)).to.be.greaterThan(Date.parse(row.updated_at));
        await sleep(5);
        const second = dataOf<RowJson>(await put(row.id, await aChange()));
        expect(second.created_at).to.equal(row.created_at);
        expect(Date.parse(second.updated_at)).to.be.greaterThan(Date.parse(first.updated_at));
        expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(second);
      });

      it('answers an empty change, or one of unknown fields only, with the row untouched (updated_at and ETag included)', async () => {
        const row = await create();
        await sleep(5);
        for (const change of [{}, { not_a_field: 'blue', id: randomUUID(), version: 7 }]) {
          const response = await put(row.id, change);
          expect(dataOf<RowJson>(response)).to.deep.equal(row);
          expect(etagOf(response)).to.equal('"1"');
        }
        expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
      });

      const [a, b] = refusable;
      if (a && b) {
        it(`lists every failing field at once; a valid ${a.name} beside a refused ${b.name} is not written either`, async () => {
          const row = await create();
          expectValidation(await put(row.id, { [a.name]: a.invalid[0]!.value, [b.name]: b.invalid[0]!.value }), [
            { field: a.name, message: a.invalid[0]!.message },
            { field: b.name, message: b.invalid[0]!.message },
          ]);
          expectValidation(await put(row.id, { [a.name]: await otherValue(a), [b.name]: b.invalid[0]!.value }), [
            { field: b.name, message: b.invalid[0]!.message },
          ]);
          expect(dataOf<RowJson>(await get(row.id))).to.deep.equal(row);
        });
      }

      it('answers 404 for an unknown or non-UUID id, an empty change included', async () => {
        const body = await validBody(world(), resource, 1);
        expectError(await put(UNKNOWN_ID, body), 404, 'NOT_FOUND', notFound, { detail: `id: ${UNKNOWN_ID}` });
        expectError(await put(UNKNOWN_ID, {}), 404, 'NOT_FOUND', notFound, { detail: `id: ${UNKNOWN_ID}` });
        expectError(await put('abc', body), 404, 'NOT_FOUND', notFound, { detail: 'id: abc' });
      });
    });

    describeResourceVersions(kit);

    describe('delete', () => {
      it(`answers 204 with no body; then GET, PUT and DELETE answer 404, and no list${searchField ? ' or search' : ''} shows it`, async () => {
        const marker = `zq${randomUUID().replace(/-/g, '').slice(0, 8)}`;
        const value = searchField ? searchable(searchField, marker) : undefined;
        const row = await create(searchField ? { [searchField.name]: value! } : {});
        const response = await remove(row.id);
        expect(response.status, response.text).to.equal(204);
        expect(response.text).to.equal('');
        const gone = { detail: `id: ${row.id}` };
        expectError(await get(row.id), 404, 'NOT_FOUND', notFound, gone);
        expectError(await put(row.id, await validBody(world(), resource, 1)), 404, 'NOT_FOUND', notFound, gone);
        expectError(await remove(row.id), 404, 'NOT_FOUND', notFound, gone);
        // The newest rows come first: it would be on this page.
        expect(listOf(resource, await list({ per_page: '100' })).data.map((r) => r.id)).not.to.include(row.id);
        if (value !== undefined) {
          const found = await api().get(withQuery(`${collection}/search`, { q: value }), { token: token() });
          expect(listOf(resource, found).meta.total).to.equal(0);
        }
      });

      it('deletes only the row named', async () => {
        const keep = await create();
        const drop = await create();
        expect((await remove(drop.id)).status).to.equal(204);
        expect(dataOf<RowJson>(await get(keep.id))).to.deep.equal(keep);
      });

      it('answers 404 for a non-UUID id', async () => {
        for (const id of ['abc', '1'])
          expectError(await remove(id), 404, 'NOT_FOUND', notFound, { detail: `id: ${id}` });
      });
    });

    for (const field of refs) {
      describe(`the reference ${field.name}`, () => {
        const target = () => field.ref!();

        it(`refuses ${withArticle(field.name)} naming no row: 400 on ${field.name}, on create and on update`, async () => {
          const message = `must name an existing ${target().human.toLowerCase()}`;
          const body = { ...(await validBody(world(), resource)), [field.name]: UNKNOWN_ID };
          expectValidation(await post(body), [{ field: field.name, message }]);
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
          expect((await remove(row.id)).status).to.equal(204);
          expect((await api().delete(parentPath, { token: token() })).status).to.equal(204);
        });
      });
    }

    describeConcurrentUpdatesOnEngines(resource);
  });
}

export type { ResourceWorld };
