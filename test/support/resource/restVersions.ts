import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { dataOf, expectError, expectValidation } from '../api.js';
import { externalService } from '../env.js';
import { UNKNOWN_ID, type FieldUnderTest, type Json, type ResourceUnderTest } from './descriptor.js';
import type { RestKit } from './restKit.js';
import {
  createRow,
  etagOf,
  itemPath,
  sampleFor,
  useResourceWorld,
  validBody,
  type ResourceWorld,
  type RowJson,
} from './world.js';

/** Two different values of `field`: its samples, or (a ref) two new rows of the resource it names. */
async function twoValues(world: ResourceWorld, field: FieldUnderTest): Promise<readonly [Json, Json]> {
  if (!field.ref) return [sampleFor(world, field, 0), sampleFor(world, field, 1)];
  return [(await createRow(world, field.ref())).id, (await createRow(world, field.ref())).id];
}

/**
 * Versions and concurrent writes, as every resource has them (docs/lists.md, docs/http.md): the
 * `ETag` of every answer carrying one row, conditional writes with `If-Match` (its syntax, `*`,
 * lists, strong comparison), and concurrent partial updates without it, which all succeed and lose
 * no write.
 */
export function describeResourceVersions(kit: RestKit): void {
  const { resource, world, api, token, get, put, putIf, remove, create, aChange, expectStale, notFound } = kit;
  const refusable = resource.fields.filter((f) => f.invalid.length > 0);

  describe('versions: ETag and If-Match', () => {
    it('every answer carrying one row has ETag "<version>": POST, GET, PUT and HEAD; a list has none', async () => {
      const row = await create();
      expect(etagOf(await get(row.id))).to.equal('"1"');
      const changed = await put(row.id, await aChange());
      expect(changed.status, changed.text).to.equal(200);
      expect(etagOf(changed)).to.equal('"2"');
      expect(etagOf(await get(row.id))).to.equal('"2"');
      expect(etagOf(await put(row.id, {}))).to.equal('"2"');
      expect(etagOf(await api().send('HEAD', itemPath(resource, row.id), { token: token() }))).to.equal('"2"');
      expect(etagOf(await api().get(resource.collection, { token: token() }))).to.equal(null);
    });

    it('updates at the named version; a stale one (behind or ahead) is 412 PRECONDITION_FAILED writing nothing, for an empty change too', async () => {
      const row = await create();
      const updated = await putIf(row.id, '"1"', await validBody(world(), resource, 1));
      expect(etagOf(updated)).to.equal('"2"');
      for (const version of ['"1"', '"7"']) {
        expectStale(await putIf(row.id, version, await validBody(world(), resource)), row.id);
        expectStale(await putIf(row.id, version, {}), row.id);
      }
      const stored = await get(row.id);
      expect(dataOf<RowJson>(stored)).to.deep.equal(dataOf<RowJson>(updated));
      expect(etagOf(stored)).to.equal('"2"');
      expect(etagOf(await putIf(row.id, '"2"', {}))).to.equal('"2"');
    });

    it('If-Match: * matches any version; a list matches if any member does; a weak tag never matches (strong comparison)', async () => {
      const row = await create();
      expect(etagOf(await putIf(row.id, '*', await aChange()))).to.equal('"2"');
      expect(etagOf(await putIf(row.id, '"9", "2"', await aChange()))).to.equal('"3"');
      expect(etagOf(await putIf(row.id, '"1","3" , "5"', await aChange()))).to.equal('"4"');
      // Strong comparison is of the tag's characters: "04" is not "4".
      for (const header of ['W/"4"', '"1", W/"4"', '"04"'])
        expectStale(await putIf(row.id, header, await aChange()), row.id);
      expect(etagOf(await get(row.id))).to.equal('"4"');
    });

    it('answers a malformed If-Match (not *, not quoted integers) with 400 BAD_REQUEST on PUT and DELETE, changing nothing', async () => {
      const row = await create();
      for (const header of [
        '1',
        '"abc"',
        '"1',
        'W/1',
        '"1" "2"',
        '*, "1"',
        '',
        ' , ',
        '"-1"',
        '"1.5"',
        "'1'",
        'W/"x"',
      ]) {
        for (const response of [await putIf(row.id, header, await aChange()), await remove(row.id, header)]) {
          expect(response.status, `If-Match: ${header}`).to.equal(400);
          expectError(response, 400, 'BAD_REQUEST', 'invalid If-Match header', {
            detail: 'expected * or quoted versions, e.g. "3"',
          });
        }
      }
      const stored = await get(row.id);
      expect(dataOf<RowJson>(stored)).to.deep.equal(row);
      expect(etagOf(stored)).to.equal('"1"');
    });

    it('answers an unknown id with 404 whatever If-Match says; a refused body is 400 before the version is looked at', async () => {
      const gone = { detail: `id: ${UNKNOWN_ID}` };
      for (const header of ['"1"', '*']) {
        expectError(await putIf(UNKNOWN_ID, header, await aChange()), 404, 'NOT_FOUND', notFound, gone);
        expectError(await remove(UNKNOWN_ID, header), 404, 'NOT_FOUND', notFound, gone);
      }
      const row = await create();
      const [field] = refusable;
      if (field) {
        expectValidation(await putIf(row.id, '"9"', { [field.name]: field.invalid[0]!.value }), [
          { field: field.name, message: field.invalid[0]!.message },
        ]);
      }
    });

    it('deletes only at a named version: 412 for a stale or weak one; 204 for a list holding the current one, or *', async () => {
      const row = await create();
      await put(row.id, await aChange());
      expectStale(await remove(row.id, '"1"'), row.id);
      expectStale(await remove(row.id, 'W/"2"'), row.id);
      expect(etagOf(await get(row.id))).to.equal('"2"');
      expect((await remove(row.id, '"1", "2"')).status).to.equal(204);
      expectError(await get(row.id), 404, 'NOT_FOUND', notFound, { detail: `id: ${row.id}` });
      const other = await create();
      expect((await remove(other.id, '*')).status).to.equal(204);
      expectError(await remove(other.id, '*'), 404, 'NOT_FOUND', notFound, { detail: `id: ${other.id}` });
    });

    it('lets exactly one of 10 concurrent PUTs with the same If-Match through; the others are 412 and wrote nothing', async () => {
      const row = await create();
      const bodies = await Promise.all(
        Array.from({ length: 10 }, (_, n) => validBody(world(), resource, (n % 2) as 0 | 1)),
      );
      const responses = await Promise.all(bodies.map((body) => putIf(row.id, '"1"', body)));
      const winners = responses.filter((r) => r.status === 200);
      expect(winners, responses.map((r) => r.status).join(' ')).to.have.length(1);
      for (const response of responses) if (response.status !== 200) expectStale(response, row.id);
      const stored = await get(row.id);
      expect(dataOf<RowJson>(stored)).to.deep.equal(dataOf<RowJson>(winners[0]!));
      expect(etagOf(stored)).to.equal('"2"');
    });
  });

  const [one, two] = resource.fields;
  if (one && two) {
    describe('concurrent partial updates without If-Match', () => {
      it(`keeps concurrent changes of ${one.name} and ${two.name} both (no lost write), every answer 200`, async () => {
        const [ones, twos] = [await twoValues(world(), one), await twoValues(world(), two)];
        const row = await create({ [one.name]: ones[0], [two.name]: twos[0] });
        for (let round = 1; round <= 15; round += 1) {
          const which = round % 2;
          const answers = await Promise.all([
            put(row.id, { [one.name]: ones[which]! }),
            put(row.id, { [two.name]: twos[which]! }),
          ]);
          expect(
            answers.map((a) => a.status),
            answers.map((a) => a.text).join(' '),
          ).to.deep.equal([200, 200]);
          const stored = dataOf<RowJson>(await get(row.id));
          expect([stored[one.name], stored[two.name]], `round ${round}`).to.deep.equal([ones[which], twos[which]]);
        }
      });
    });
  }
}

/**
 * 50 concurrent partial PUTs of one row, none with If-Match, split between its first two fields
 * (docs/lists.md): every one answers 200 (none 409) with its own version, each answer shows its own
 * write, and the stored row holds the last acknowledged write of each field. On an SQLite file and,
 * when SVC_TEST_POSTGRES_URL is set, on PostgreSQL — the databases where the writers really overlap.
 */
export function describeConcurrentUpdatesOnEngines(resource: ResourceUnderTest): void {
  describe('50 concurrent partial updates, on real databases', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-concurrent-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    for (const [engine, database] of [
      ['an SQLite file', (): string | undefined => `sqlite:${join(dir, 'concurrent.sqlite')}`],
      ['PostgreSQL', (): string | undefined => externalService('SVC_TEST_POSTGRES_URL')],
    ] as const) {
      describe(`on ${engine}`, () => {
        const world = useResourceWorld({ database, skipReason: 'needs SVC_TEST_POSTGRES_URL' });

        it('all 50 answer 200 with versions 2…51; each field keeps its last acknowledged write', async () => {
          const { api, token } = world();
          const fields = resource.fields.slice(0, 2);
          const values = new Map<string, readonly [Json, Json]>();
          for (const field of fields) values.set(field.name, await twoValues(world(), field));
          const row = await createRow(world(), resource);
          const writes = Array.from({ length: 50 }, (_, n) => {
            const field = fields[n % fields.length]!;
            return { [field.name]: values.get(field.name)![Math.floor(n / fields.length) % 2]! };
          });

          const path = itemPath(resource, row.id);
          const responses = await Promise.all(writes.map((json) => api.put(path, { token, json })));

          expect(
            responses.map((r) => r.status).filter((s) => s !== 200),
            'answers other than 200',
          ).to.deep.equal([]);
          const versions = responses.map((r) => Number(JSON.parse(etagOf(r) ?? 'null')));
          expect([...versions].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 50 }, (_, n) => n + 2));
          const stored = await api.get(path, { token });
          expect(etagOf(stored)).to.equal('"51"');
          const lastWrite = (name: string): Json => {
            const indexes = writes.flatMap((w, n) => (name in w ? [n] : []));
            return writes[indexes.reduce((a, b) => (versions[a]! > versions[b]! ? a : b))]![name]!;
          };
          const storedRow = dataOf<RowJson>(stored);
          for (const field of fields) expect(storedRow[field.name], field.name).to.deep.equal(lastWrite(field.name));
          // Each answer shows its own write on top of every earlier one.
          for (const [n, response] of responses.entries())
            expect(dataOf<RowJson>(response)).to.deep.include(writes[n]!);
        });
      });
    }
  });
}
