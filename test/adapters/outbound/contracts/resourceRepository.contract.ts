import { expect } from 'chai';
import { ConflictError, ValidationError } from '../../../../src/domain/shared/DomainError.js';
import type { ListQuery, Page, SortOrder } from '../../../../src/domain/shared/Page.js';
import type { ContractSubject } from './databases.js';

/** The repository every resource gets from the outbound cores. */
export interface ResourceRepository<E, F extends string> {
  add(entity: E): Promise<void>;
  findById(id: string): Promise<E | undefined>;
  update(id: string, change: (current: E) => E): Promise<E | undefined>;
  delete(id: string, onlyAtVersions?: readonly number[]): Promise<boolean>;
  list(query: ListQuery<F>): Promise<Page<E>>;
  /** The rows with these ids, in one read (GraphQL's batched relation fields). */
  findByIds(ids: readonly string[]): Promise<readonly E[]>;
  /** A page per referenced id, in one read (a resource with a reference). */
  listByReference?(field: string, ids: readonly string[], query: ListQuery<F>): Promise<ReadonlyMap<string, Page<E>>>;
}

type Value = string | number | boolean | Date | null;
type Props = Readonly<Record<string, unknown>>;

/** How the contract builds and reads one resource. */
export interface ResourceDescriptor<E, F extends string> {
  /** A valid entity with this id at version 1; `values` (props, camel case) override its defaults. */
  make(id: string, values?: Props): E;
  propsOf(entity: E): Props;
  /** A valid partial change (bumping the version) that writes `n` somewhere, so 50 of them are 50 distinct writes. */
  change(entity: E, n: number, now: Date): E;
  /** Every sortable field: its props key, whether optional, and a few distinct values in ascending order. */
  readonly sortable: readonly {
    readonly field: F;
    readonly prop: string;
    readonly optional: boolean;
    readonly values: readonly Value[];
    /** Unique: no two rows share a value, so row `n` of a catalogue holds `values[n]` (as many as rows), or null now and then when optional. */
    readonly unique?: boolean;
  }[];
  /** The searched field's props key. */
  readonly search?: string;
  /** A reference field: its props key, its name in errors and filters (snake), and the referenced resource's name in messages. */
  readonly reference?: { readonly prop: string; readonly field: string; readonly target: string };
}

/** What the contract runs against: the repository, the referenced resource's (if any), and a bulk fill. */
export interface ResourceStorage<E, F extends string> {
  readonly repository: ResourceRepository<E, F>;
  /** Adds a referenced row with this id; deletes it (throwing what its repository throws). */
  readonly referenced?: { add(id: string): Promise<void>; delete(id: string): Promise<boolean> };
  addMany(entities: readonly E[]): Promise<void>;
}

const id = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const TARGET = id(0xfff0);
const OTHER_TARGET = id(0xfff1);

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return expect.fail('expected the promise to reject');
}

const key = (value: unknown): number | string | boolean =>
  value instanceof Date ? value.getTime() : (value as number | string | boolean);

/**
 * The order the contract promises: by the field (nulls last both ways), ties by id, in one
 * direction. When every value is one of the field's `values` (which the descriptor lists in
 * ascending order) a value ranks by its place there — so a decimal's `"9.00"` comes before
 * `"10.00"` whatever its text says; otherwise (a reference the contract sets itself) by the value.
 */
function expectedIds(
  rows: readonly Props[],
  sortable: { readonly prop: string; readonly values: readonly Value[] },
  order: SortOrder,
): string[] {
  const sign = order === 'asc' ? 1 : -1;
  const { prop, values } = sortable;
  const place = (value: unknown): number => values.findIndex((listed) => listed !== null && key(listed) === key(value));
  const ranked = rows.every((row) => (row[prop] ?? null) === null || place(row[prop]) >= 0);
  const rank = (value: unknown) => (ranked ? place(value) : key(value));
  return [...rows]
    .sort((a, b) => {
      const x = a[prop] ?? null;
      const y = b[prop] ?? null;
      if ((x === null) !== (y === null)) return x === null ? 1 : -1;
      if (x !== null && y !== null && rank(x) !== rank(y)) return sign * (rank(x) < rank(y) ? -1 : 1);
      return sign * ((a.id as string) < (b.id as string) ? -1 : 1);
    })
    .map((row) => row.id as string);
}

/**
 * The behaviour every resource repository built on the outbound cores promises, on memory,
 * SQLite and PostgreSQL alike, for any resource the descriptor describes.
 */
export function resourceRepositoryContract<E, F extends string>(
  name: string,
  descriptor: ResourceDescriptor<E, F>,
  subject: ContractSubject<ResourceStorage<E, F>>,
): void {
  const { make, propsOf } = descriptor;
  const reference = descriptor.reference;
  /** Row `n` of a catalogue: every sortable field cycles through its values (and null when optional), so values tie. */
  const nth = (n: number): E => {
    const values: Record<string, unknown> = {};
    for (const [k, s] of descriptor.sortable.entries()) {
      const choices = s.optional ? [...s.values, null] : s.values;
      if (s.unique) values[s.prop] = s.optional && n % 5 === 3 ? null : s.values[n];
      else values[s.prop] = choices[(n * (k + 1) + k) % choices.length];
    }
    if (reference) values[reference.prop] = n % 3 === 0 ? OTHER_TARGET : TARGET;
    return make(id(((n * 7919) % 10_007) + 1), values);
  };

  describe(`resource repository contract: ${name}`, function () {
    let storage: ResourceStorage<E, F>;
    const repository = () => storage.repository;
    const list = (q: Partial<ListQuery<F>> = {}) =>
      repository().list({ page: 1, perPage: 100, sort: 'created_at' as F, order: 'desc', ...q });

    before(async function () {
      const skipped = await subject.setUp();
      if (skipped !== undefined) {
        console.log(`      (skipped: ${skipped})`);
        this.skip();
      }
    });
    after(() => subject.tearDown());

    describe('on a fresh store per test', () => {
      beforeEach(async () => {
        storage = await subject.fresh();
        await storage.referenced?.add(TARGET);
        await storage.referenced?.add(OTHER_TARGET);
      });

      it('finds an added row by id with every field intact, and nothing for an unknown id', async () => {
        const rows = [nth(1), nth(2), nth(3), nth(4)];
        for (const row of rows) await repository().add(row);
        for (const row of rows)
          expect(propsOf((await repository().findById(propsOf(row).id as string))!)).to.deep.equal(propsOf(row));
        expect(await repository().findById(id(0xabc))).to.equal(undefined);
        expect(await repository().findById('not an id')).to.equal(undefined);
      });

      it('applies 50 concurrent partial updates of one row: all succeed, none is lost', async () => {
        const row = nth(1);
        const rowId = propsOf(row).id as string;
        await repository().add(row);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, n) =>
            repository().update(rowId, (current) => descriptor.change(current, n, at(n))),
          ),
        );
        expect(results.every((result) => result !== undefined)).to.equal(true);
        expect(propsOf((await repository().findById(rowId))!).version).to.equal(51);
      });

      it('writes nothing when the change refuses (a conditional update), and nothing for an unknown id', async () => {
        const row = nth(1);
        const rowId = propsOf(row).id as string;
        await repository().add(row);
        const atVersion = (expected: number) => (current: E) => {
          if (propsOf(current).version !== expected) throw new Error('stale');
          return descriptor.change(current, 7, at(7));
        };
        expect(propsOf((await repository().update(rowId, atVersion(1)))!).version).to.equal(2);
        expect(((await rejection(repository().update(rowId, atVersion(1)))) as Error).message).to.equal('stale');
        expect(propsOf((await repository().findById(rowId))!).version).to.equal(2);
        expect(await repository().update(id(0xabc), atVersion(1))).to.equal(undefined);
      });

      it('deletes only at the named versions, then answers false', async () => {
        const row = nth(1);
        const rowId = propsOf(row).id as string;
        await repository().add(row);
        expect(await repository().delete(rowId, [2, 3])).to.equal(false);
        expect(await repository().delete(rowId, [])).to.equal(false);
        expect(await repository().delete(rowId, [1])).to.equal(true);
        expect(await repository().delete(rowId)).to.equal(false);
        expect(await repository().findById(rowId)).to.equal(undefined);
      });

      describe('sorts', () => {
        const catalogue = Array.from({ length: 14 }, (_, n) => nth(n));
        beforeEach(async () => {
          for (const row of catalogue) await repository().add(row);
        });
        for (const sortable of descriptor.sortable) {
          for (const order of ['asc', 'desc'] as const) {
            it(`by ${sortable.field} ${order}, ties by id${sortable.optional ? ', nulls last' : ''}, 5 a page without repeats or skips`, async () => {
              const expected = expectedIds(catalogue.map(propsOf), sortable, order);
              const seen: string[] = [];
              for (let page = 1; page <= 3; page++) {
                const answer = await list({ sort: sortable.field, order, page, perPage: 5 });
                expect(answer.total).to.equal(14);
                seen.push(...answer.items.map((e) => propsOf(e).id as string));
              }
              expect(seen).to.deep.equal(expected);
              if (sortable.optional) expect(catalogue.some((e) => propsOf(e)[sortable.prop] === null)).to.equal(true);
            });
          }
        }

        it('answers the exact total on every page, and on a page past the end no items with the total still exact', async () => {
          const field = descriptor.sortable[0]!.field;
          const totals = [];
          for (let page = 1; page <= 4; page++) totals.push((await list({ sort: field, page, perPage: 5 })).total);
          expect(totals).to.deep.equal([14, 14, 14, 14]);
          expect((await list({ sort: field, page: 4, perPage: 5 })).items).to.deep.equal([]);
          expect((await list({ sort: field, page: 1, perPage: 100 })).items).to.have.length(14);
        });
      });

      if (descriptor.search) {
        const prop = descriptor.search;
        it('searches case-insensitively anywhere in the search field, counting only the matches', async () => {
          const values = ['Blue Widget', 'WIDGET pro', 'gadget', '100% widget_', 'Éclair widgetry'];
          for (const [n, value] of values.entries())
            await repository().add(
              make(id(n + 1), { [prop]: value, ...(reference ? { [reference.prop]: TARGET } : {}) }),
            );
          const matches = async (q: string) =>
            (await list({ q, sort: 'created_at' as F })).items.map((e) => propsOf(e)[prop]);
          expect(await matches('wIdGeT')).to.have.members([
            'Blue Widget',
            'WIDGET pro',
            '100% widget_',
            'Éclair widgetry',
          ]);
          expect(await matches('% W')).to.have.members(['100% widget_']);
          expect(await matches('_')).to.have.members(['100% widget_']);
          expect(await matches('éCLAIR')).to.have.members(['Éclair widgetry']);
          expect((await list({ q: 'zzz' })).total).to.equal(0);
          // The total of a page with rows counts only the matches too.
          const page = await list({ q: 'widget', sort: 'created_at' as F, perPage: 2 });
          expect([page.items.length, page.total]).to.deep.equal([2, 4]);
        });
      }

      it('finds rows by many ids at once: unknown and repeated ids answer nothing more', async () => {
        for (let n = 0; n < 3; n++)
          await repository().add(make(id(n + 1), reference ? { [reference.prop]: TARGET } : {}));
        const found = await repository().findByIds([id(3), id(1), id(0xabc), id(1)]);
        expect(found.map((e) => propsOf(e).id).sort()).to.deep.equal([id(1), id(3)]);
        expect(found.map(propsOf)).to.deep.include(propsOf((await repository().findById(id(3)))!));
        expect(await repository().findByIds([])).to.deep.equal([]);
      });

      if (reference) {
        it('lists a page per referenced id at once, each the page the filtered list answers', async () => {
          for (let n = 0; n < 14; n++) await repository().add(nth(n));
          const byReference = repository().listByReference;
          expect(byReference, 'a resource with a reference lists by it').to.be.a('function');
          for (const [page, perPage, sort] of [
            [1, 2, descriptor.sortable[0]!.field],
            [2, 3, 'created_at' as F],
            [9, 5, 'updated_at' as F],
          ] as const) {
            for (const order of ['asc', 'desc'] as const) {
              const query = { page, perPage, sort, order };
              const pages = await byReference!.call(
                repository(),
                reference.field,
                [OTHER_TARGET, TARGET, id(0xabc)],
                query,
              );
              expect([...pages.keys()]).to.have.members([OTHER_TARGET, TARGET, id(0xabc)]);
              for (const target of [TARGET, OTHER_TARGET]) {
                const alone = await list({ ...query, filters: { [reference.field]: target } });
                const batched = pages.get(target)!;
                expect(batched.total, `${target} ${sort} ${order} page ${page}`).to.equal(alone.total);
                expect(batched.items.map((e) => propsOf(e).id)).to.deep.equal(alone.items.map((e) => propsOf(e).id));
              }
              expect(pages.get(id(0xabc))).to.deep.include({ total: 0, items: [] });
            }
          }
        });

        it('filters by the reference', async () => {
          for (let n = 0; n < 9; n++) await repository().add(nth(n));
          const page = await list({ filters: { [reference.field]: OTHER_TARGET } });
          expect(page.total).to.equal(3);
          expect(page.items.every((e) => propsOf(e)[reference.prop] === OTHER_TARGET)).to.equal(true);
          expect((await list({ filters: { [reference.field]: id(0xabc) } })).total).to.equal(0);
        });

        it('refuses to delete a referenced row with a conflict, and deletes it once nothing references it', async () => {
          const row = make(id(1), { [reference.prop]: TARGET });
          await repository().add(row);
          const error = await rejection(storage.referenced!.delete(TARGET));
          expect(error).to.be.instanceOf(ConflictError);
          expect((error as ConflictError).message).to.match(/ is still referenced$/);
          expect(await repository().delete(id(1))).to.equal(true);
          expect(await storage.referenced!.delete(TARGET)).to.equal(true);
        });

        it('refuses a row whose reference names nothing, on add and on update, with a validation error on that field', async () => {
          const error = await rejection(repository().add(make(id(1), { [reference.prop]: id(0xabc) })));
          expect(error).to.be.instanceOf(ValidationError);
          expect((error as ValidationError).fields).to.deep.equal([
            { field: reference.field, message: `must name an existing ${reference.target}` },
          ]);
          expect(await repository().findById(id(1))).to.equal(undefined);

          await repository().add(make(id(2), { [reference.prop]: TARGET }));
          const dangling = (current: E) =>
            make(id(2), { ...propsOf(current), [reference.prop]: id(0xabc), version: 2 });
          expect(await rejection(repository().update(id(2), dangling))).to.be.instanceOf(ValidationError);
          expect(propsOf((await repository().findById(id(2)))!)).to.include({ version: 1, [reference.prop]: TARGET });
        });
      }
    });

    describe('3,000 rows that tie a lot', function () {
      const all = Array.from({ length: 3000 }, (_, n) => nth(n));
      before(async function () {
        this.timeout(60_000);
        storage = await subject.fresh();
        await storage.referenced?.add(TARGET);
        await storage.referenced?.add(OTHER_TARGET);
        await storage.addMany(all);
      });
      after(() => subject.fresh());

      const walks = descriptor.sortable
        .filter((s, n) => s.optional || n === 0)
        .flatMap((s) => [[s, 'asc'] as const, [s, 'desc'] as const]);
      for (const [sortable, order] of walks) {
        it(`walks every page of ${sortable.field} ${order} at 100 a page, each row once, in order`, async function () {
          this.timeout(60_000);
          const seen: string[] = [];
          for (let page = 1; page <= 31; page++)
            seen.push(
              ...(await list({ sort: sortable.field, order, page, perPage: 100 })).items.map(
                (e) => propsOf(e).id as string,
              ),
            );
          expect(seen).to.deep.equal(expectedIds(all.map(propsOf), sortable, order));
        });
      }
    });
  });
}
