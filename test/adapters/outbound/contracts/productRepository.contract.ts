import { expect } from 'chai';
import { Product, type ProductProps } from '../../../../src/domain/product/Product.js';
import { PreconditionFailedError } from '../../../../src/domain/shared/DomainError.js';
import type { ResourceRepository } from '../../../../src/domain/shared/ResourceRepository.js';
import type { ProductListQuery, ProductSortField } from '../../../support/resources/product.js';
import { CATALOGUE, expectedOrder, ORDERS, productId, SORTS } from '../../../support/resources/productCatalogue.js';
import type { SortOrder } from '../../../../src/domain/shared/Page.js';
import { productInput } from '../../../support/resources/product.js';
import type { ContractSubject } from './databases.js';

/** What the product contract runs against: the port, plus a fast way to fill it for the big lists. */
export interface ProductStorage {
  readonly repository: ResourceRepository<Product, ProductSortField>;
  /** Stores many products at once, through a bulk path where the engine has one. */
  addMany(products: readonly Product[]): Promise<void>;
}

/** A UUID-shaped id whose last hex digits order the products deliberately. */
const id = productId;

const T0 = new Date('2026-01-02T03:04:05.678Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

function aProduct(overrides: Partial<ProductProps> & Pick<ProductProps, 'id'>): Product {
  return Product.restore({
    ...productInput,
    name: 'Widget',
    price: 9.99,
    version: 1,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  expect.fail('expected the promise to reject');
}

/** Names holding LIKE's wildcards and the escape character (to be matched literally), and "widget" in every case. */
const AWKWARD: readonly Product[] = [
  aProduct({ id: id('101'), name: '100% Cotton', price: 20 }),
  aProduct({ id: id('102'), name: '1000 Threads', price: 21 }),
  aProduct({ id: id('103'), name: 'snake_case', price: 22 }),
  aProduct({ id: id('104'), name: 'snakeXcase', price: 23 }),
  aProduct({ id: id('105'), name: 'Wow!', price: 24 }),
  aProduct({ id: id('106'), name: 'Wowza', price: 25 }),
  aProduct({ id: id('107'), name: 'Ex!_Mark', price: 26 }),
  aProduct({ id: id('108'), name: 'Blue Widget', price: 7, createdAt: at(5) }),
  aProduct({ id: id('109'), name: 'WIDGET Pro', price: 3, createdAt: at(6) }),
  aProduct({ id: id('10a'), name: 'widgetry', price: 11, createdAt: at(1) }),
  // GLOB's special characters, in case an engine searches with GLOB instead of LIKE.
  aProduct({ id: id('10b'), name: '2*3 Pack', price: 27 }),
  aProduct({ id: id('10c'), name: 'Why?', price: 28 }),
  aProduct({ id: id('10d'), name: '[Limited] Box', price: 29 }),
  aProduct({ id: id('10e'), name: 'a^b', price: 30 }),
];

/** The value a product is sorted by, comparable with `<`, for the sort fields the big walks check. */
const SORT_KEY = {
  name: (p: Product) => p.name,
  price: (p: Product) => p.price,
  created_at: (p: Product) => p.createdAt.getTime(),
  updated_at: (p: Product) => p.updatedAt.getTime(),
} satisfies Partial<Record<ProductSortField, (p: Product) => string | number>>;

/** A sort field SORT_KEY knows how to compare by. */
type KeyedSort = keyof typeof SORT_KEY;

/** -1, 0 or 1: how `a` orders before `b` by the sort field, then by id (binary), ascending. */
function compareBy(sort: KeyedSort, a: Product, b: Product): number {
  const x = SORT_KEY[sort](a);
  const y = SORT_KEY[sort](b);
  if (x !== y) return x < y ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const BIG = 10_000;

/**
 * BIG products built to tie a lot: 37 names, 53 prices, 101 creation and 13 update times, with
 * ids that are a permutation of 0…BIG-1 unrelated to any of those (7919 is coprime to 10,000).
 */
function bigCatalogue(): Product[] {
  const names = Array.from({ length: 37 }, (_, n) => `Item ${n}`);
  return Array.from({ length: BIG }, (_, i) =>
    aProduct({
      id: id(((i * 7919) % BIG).toString(16)),
      name: names[i % 37]!,
      price: ((i % 53) + 1) / 4,
      createdAt: new Date(T0.getTime() + (i % 101) * 1000),
      updatedAt: new Date(T0.getTime() + 86_400_000 + (i % 13) * 7),
    }),
  );
}

/** The behaviour every ProductRepository promises, whichever storage is behind it. */
export function productRepositoryContract(name: string, subject: ContractSubject<ProductStorage>): void {
  describe(`ProductRepository contract: ${name}`, function () {
    before(async function () {
      const skipped = await subject.setUp();
      if (skipped !== undefined) {
        console.log(`      (skipped: ${skipped})`);
        this.skip();
      }
    });

    after(async () => {
      await subject.tearDown();
    });

    describe('on a fresh store per test', () => {
      let storage: ProductStorage | undefined;
      beforeEach(async () => {
        storage = await subject.fresh();
      });
      const repository = (): ResourceRepository<Product, ProductSortField> => {
        if (!storage) throw new Error('no implementation: beforeEach did not run');
        return storage.repository;
      };
      const list = (q: Partial<ProductListQuery> = {}) =>
        repository().list({ page: 1, perPage: 100, sort: 'created_at', order: 'desc', ...q });
      const idsOf = (products: readonly Product[]): string[] => products.map((p) => p.id);

      describe('add and find', () => {
        it('finds an added product by id, every field intact', async () => {
          const product = aProduct({
            id: id('1'),
            name: 'Widget',
            price: 19.99,
            version: 3,
            createdAt: new Date('2026-01-02T03:04:05.678Z'),
            updatedAt: new Date('2026-02-03T04:05:06.789Z'),
          });
          await repository().add(product);
          expect((await repository().findById(product.id))?.toProps()).to.deep.equal(product.toProps());
        });

        it('answers undefined for an unknown id', async () => {
          await repository().add(aProduct({ id: id('1') }));
          expect(await repository().findById(id('2'))).to.equal(undefined);
        });

        it('answers undefined (never an error) for ids that are not UUIDs, and deletes nothing by them', async () => {
          await repository().add(aProduct({ id: id('1') }));
          for (const odd of ['search', '', 'x'.repeat(100), `${id('1')} `, "1' or '1'='1"]) {
            expect(await repository().findById(odd), JSON.stringify(odd)).to.equal(undefined);
            expect(await repository().delete(odd), JSON.stringify(odd)).to.equal(false);
          }
          expect(await repository().findById(id('1'))).to.not.equal(undefined);
        });

        it('round-trips prices exactly, in every read path', async () => {
          const prices = [
            0.1,
            19.99,
            1e6,
            0.30000000000000004,
            1234567.891,
            1e-7,
            2.5,
            1 / 3,
            Number.MAX_SAFE_INTEGER,
            1e300,
            Number.MIN_VALUE,
            Number.MAX_VALUE,
          ];
          const products = prices.map((price, n) =>
            aProduct({ id: id((n + 1).toString(16)), name: `priced ${n}`, price }),
          );
          for (const product of products) await repository().add(product);

          for (const product of products)
            expect((await repository().findById(product.id))?.price).to.equal(product.price);
          const listed = (await list({ sort: 'price', order: 'asc' })).items;
          expect(listed.map((p) => p.price)).to.deep.equal([...prices].sort((a, b) => a - b));
          const searched = (await list({ q: 'PRICED', sort: 'price', order: 'desc' })).items;
          expect(searched.map((p) => p.price)).to.deep.equal([...prices].sort((a, b) => b - a));
        });

        it('round-trips timestamps to the millisecond, in every read path', async () => {
          const cases = [
            { createdAt: new Date('2026-03-04T05:06:07.001Z'), updatedAt: new Date('2026-03-04T05:06:07.999Z') },
            { createdAt: new Date('1970-01-01T00:00:00.001Z'), updatedAt: new Date('2099-12-31T23:59:59.999Z') },
            { createdAt: new Date('2024-02-29T12:00:00.500Z'), updatedAt: new Date('2024-02-29T12:00:00.500Z') },
          ];
          for (const [n, times] of cases.entries())
            await repository().add(aProduct({ id: id(String(n + 1)), name: `stamp ${n}`, ...times }));

          for (const [n, times] of cases.entries()) {
            const reads = [
              await repository().findById(id(String(n + 1))),
              (await list()).items.find((p) => p.id === id(String(n + 1))),
              (await list({ q: `stamp ${n}` })).items[0],
            ];
            for (const read of reads) {
              expect(read?.createdAt).to.be.instanceOf(Date);
              expect(read?.updatedAt).to.be.instanceOf(Date);
              expect(read?.createdAt.getTime()).to.equal(times.createdAt.getTime());
              expect(read?.updatedAt.getTime()).to.equal(times.updatedAt.getTime());
            }
          }
        });

        it('round-trips names exactly: 200 characters outside the BMP, accents, quotes and backslashes', async () => {
          const names = ['😀'.repeat(200), 'n'.repeat(200), 'Café ☕ 東京', `O'Brien "quoted" \\ back`, 'x'];
          for (const [n, productName] of names.entries())
            await repository().add(aProduct({ id: id(String(n + 1)), name: productName }));
          for (const [n, productName] of names.entries())
            expect((await repository().findById(id(String(n + 1))))?.name).to.equal(productName);
        });
      });

      describe('update', () => {
        /** Applies `changes` at `when` to whatever is stored, the way the UpdateProduct use case does. */
        const applying =
          (changes: { name?: string; price?: number }, when: Date, expectedVersions?: readonly number[]) =>
          (current: Product): Product => {
            current.requireVersion(expectedVersions);
            return current.update(changes, when);
          };

        it('stores what the change returns: the changed name and price, the new version and updatedAt; keeps createdAt', async () => {
          const product = aProduct({ id: id('1') });
          await repository().add(product);
          const expected = product.update({ name: 'Gadget', price: 0.1 }, new Date('2026-05-06T07:08:09.123Z'));

          const answered = await repository().update(
            id('1'),
            applying({ name: 'Gadget', price: 0.1 }, new Date('2026-05-06T07:08:09.123Z')),
          );

          expect(answered?.toProps()).to.deep.equal(expected.toProps());
          const stored = await repository().findById(id('1'));
          expect(stored?.toProps()).to.deep.equal(expected.toProps());
          expect(stored?.version).to.equal(2);
          expect(stored?.createdAt.getTime()).to.equal(T0.getTime());
        });

        it('gives the change the product as stored, every field intact', async () => {
          const product = aProduct({ id: id('1'), name: 'Café ☕', price: 1 / 3, version: 7, updatedAt: at(9) });
          await repository().add(product);
          let seen: Product | undefined;
          await repository().update(id('1'), (current) => {
            seen = current;
            return current;
          });
          expect(seen?.toProps()).to.deep.equal(product.toProps());
        });

        it('applies a chain of updates, each on top of the previous one', async () => {
          await repository().add(aProduct({ id: id('1') }));
          for (let n = 1; n <= 3; n++) await repository().update(id('1'), applying({ price: n }, at(n)));
          expect((await repository().findById(id('1')))?.toProps()).to.deep.include({
            price: 3,
            version: 4,
            updatedAt: at(3),
          });
        });

        it('writes nothing when the change returns the product it was given, and answers it', async () => {
          const product = aProduct({ id: id('1') });
          await repository().add(product);
          const answered = await repository().update(id('1'), (current) => current);
          expect(answered?.toProps()).to.deep.equal(product.toProps());
          expect((await repository().findById(id('1')))?.toProps()).to.deep.equal(product.toProps());
        });

        it('writes nothing and rejects with what the change throws (a stale expected version, a validation error)', async () => {
          const product = aProduct({ id: id('1') });
          await repository().add(product);

          const stale = await rejection(repository().update(id('1'), applying({ name: 'Stale' }, at(1), [2])));
          expect(stale).to.be.instanceOf(PreconditionFailedError);
          expect(stale).to.include({ code: 'PRECONDITION_FAILED', detail: `id: ${id('1')}` });
          const invalid = await rejection(repository().update(id('1'), applying({ price: 0 }, at(1))));
          expect(invalid).to.include({ code: 'VALIDATION_ERROR' });

          expect((await repository().findById(id('1')))?.toProps()).to.deep.equal(product.toProps());
          // The store is usable afterwards (no transaction or lock left behind).
          expect((await repository().update(id('1'), applying({ name: 'Fine' }, at(2), [1])))?.version).to.equal(2);
        });

        it('answers undefined for a product that does not exist, without calling the change, and does not create it', async () => {
          let called = false;
          const answered = await repository().update(id('9'), (current) => {
            called = true;
            return current.update({ price: 1 }, at(1));
          });
          expect(answered).to.equal(undefined);
          expect(called).to.equal(false);
          expect(await repository().findById(id('9'))).to.equal(undefined);
        });

        it('answers undefined (never an error) for ids that are not UUIDs', async () => {
          await repository().add(aProduct({ id: id('1') }));
          for (const odd of ['search', '', `${id('1')} `, "1' or '1'='1"]) {
            expect(await repository().update(odd, applying({ price: 1 }, at(1))), JSON.stringify(odd)).to.equal(
              undefined,
            );
          }
        });

        it('leaves the other products alone', async () => {
          const [first, second] = [aProduct({ id: id('1') }), aProduct({ id: id('2'), name: 'Other' })];
          await repository().add(first);
          await repository().add(second);
          await repository().update(id('1'), applying({ name: 'Changed' }, at(1)));
          expect((await repository().findById(id('2')))?.toProps()).to.deep.equal(second.toProps());
        });

        it('lets 50 concurrent partial updates (25 names, 25 prices) all succeed; each field keeps its last write', async function () {
          this.timeout(30_000);
          await repository().add(aProduct({ id: id('1'), name: 'Start', price: 1 }));
          const writes = Array.from({ length: 50 }, (_, n) =>
            n % 2 === 0 ? { name: `Name ${n}` } : { price: n + 0.5 },
          );

          const results = await Promise.allSettled(
            writes.map((changes, n) => repository().update(id('1'), applying(changes, at(n + 1)))),
          );

          const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
          expect(failures, 'no update may fail for having raced').to.deep.equal([]);
          const answers = results.map((r) => (r.status === 'fulfilled' ? r.value! : expect.fail('rejected')));
          const versions = answers.map((a) => a.version);
          expect(
            [...versions].sort((a, b) => a - b),
            'one version each, no write lost',
          ).to.deep.equal(Array.from({ length: 50 }, (_, n) => n + 2));
          const stored = (await repository().findById(id('1')))!;
          expect(stored.version).to.equal(51);
          // In version order, every answer holds its own write and the latest earlier write of the other field.
          const byVersion = [...answers.keys()].sort((a, b) => versions[a]! - versions[b]!);
          let name = 'Start';
          let price = 1;
          for (const n of byVersion) {
            const write = writes[n]!;
            if ('name' in write) name = write.name!;
            else price = write.price!;
            expect(answers[n]!.toProps(), `version ${versions[n]}`).to.deep.include({ name, price });
          }
          expect(stored.toProps()).to.deep.include({ name, price });
          expect(writes.map((w) => w.name)).to.include(stored.name);
          expect(writes.map((w) => w.price)).to.include(stored.price);
        });

        it('lets exactly one of 10 concurrent conditional updates expecting the same version win; the rest are refused', async () => {
          await repository().add(aProduct({ id: id('1') }));
          const attempts = Array.from({ length: 10 }, (_, n) => ({ name: `Writer ${n}`, price: n + 1 }));

          const results = await Promise.allSettled(
            attempts.map((changes, n) => repository().update(id('1'), applying(changes, at(n + 1), [1]))),
          );

          const won = results.flatMap((r, n) => (r.status === 'fulfilled' ? [n] : []));
          expect(won).to.have.length(1);
          for (const result of results) {
            if (result.status === 'rejected') expect(result.reason).to.be.instanceOf(PreconditionFailedError);
          }
          expect((await repository().findById(id('1')))?.toProps()).to.deep.include({
            ...attempts[won[0]!]!,
            version: 2,
          });
        });
      });

      describe('delete', () => {
        it('answers true when it deleted the product, then false; the others stay', async () => {
          const keep = aProduct({ id: id('2'), name: 'Keep' });
          await repository().add(aProduct({ id: id('1') }));
          await repository().add(keep);

          expect(await repository().delete(id('1'))).to.equal(true);
          expect(await repository().delete(id('1'))).to.equal(false);

          expect(await repository().findById(id('1'))).to.equal(undefined);
          expect((await repository().findById(id('2')))?.toProps()).to.deep.equal(keep.toProps());
          expect((await list()).total).to.equal(1);
        });

        it('answers false for an id never stored', async () => {
          expect(await repository().delete(id('9'))).to.equal(false);
        });

        it('makes a later update of the deleted product answer undefined', async () => {
          await repository().add(aProduct({ id: id('1') }));
          await repository().delete(id('1'));
          expect(await repository().update(id('1'), (current) => current.update({ price: 1 }, at(1)))).to.equal(
            undefined,
          );
          expect(await repository().findById(id('1'))).to.equal(undefined);
        });

        it('with versions, deletes only a product stored at one of them', async () => {
          await repository().add(aProduct({ id: id('1'), version: 3 }));
          expect(await repository().delete(id('1'), [2])).to.equal(false);
          expect(await repository().delete(id('1'), [1, 2, 4])).to.equal(false);
          expect(await repository().delete(id('1'), [])).to.equal(false);
          expect(await repository().findById(id('1'))).to.not.equal(undefined);
          expect(await repository().delete(id('1'), [2, 3])).to.equal(true);
          expect(await repository().findById(id('1'))).to.equal(undefined);
          expect(await repository().delete(id('1'), [3])).to.equal(false);
        });

        it('with a version, deletes nothing when an update landed first (one statement, no race)', async () => {
          await repository().add(aProduct({ id: id('1') }));
          const [updated, deleted] = await Promise.all([
            repository().update(id('1'), (current) => current.update({ price: 2 }, at(1))),
            repository().delete(id('1'), [1]),
          ]);
          // Either order is fine, but never both: a delete expecting version 1 must not remove version 2.
          const stored = await repository().findById(id('1'));
          if (deleted) {
            expect(updated, 'the delete ran first, so the update found nothing').to.equal(undefined);
            expect(stored).to.equal(undefined);
          } else {
            expect(updated?.version).to.equal(2);
            expect(stored?.toProps()).to.deep.equal(updated?.toProps());
          }
        });
      });

      describe('list', () => {
        beforeEach(async () => {
          for (const product of CATALOGUE) await repository().add(product);
        });

        for (const sort of SORTS) {
          for (const order of ORDERS) {
            it(`sorts by ${sort} ${order}, ties by id ${order}`, async () => {
              const page = await list({ sort, order });
              expect(idsOf(page.items)).to.deep.equal(expectedOrder(sort, order));
              expect(page.total).to.equal(6);
            });

            it(`pages through ${sort} ${order} (2 and 4 a page) without repeating or skipping a row`, async () => {
              for (const perPage of [2, 4]) {
                const pages = [];
                for (let page = 1; page <= Math.ceil(6 / perPage); page++)
                  pages.push(await list({ sort, order, page, perPage }));
                expect(pages.map((p) => p.items.length)).to.deep.equal(perPage === 2 ? [2, 2, 2] : [4, 2]);
                expect(pages.flatMap((p) => idsOf(p.items))).to.deep.equal(expectedOrder(sort, order));
                for (const page of pages) expect(page.total).to.equal(6);
              }
            });
          }
        }

        it('reports page, perPage and the total across all pages', async () => {
          const page = await list({ sort: 'price', order: 'asc', page: 2, perPage: 4 });
          expect(page).to.include({ page: 2, perPage: 4, total: 6 });
          expect(idsOf(page.items)).to.deep.equal([id('c'), id('e')]);
        });

        it('answers a full last page when the total divides evenly', async () => {
          const page = await list({ sort: 'name', order: 'asc', page: 2, perPage: 3 });
          expect(idsOf(page.items)).to.deep.equal([id('a'), id('b'), id('c')]);
          expect(page.total).to.equal(6);
        });

        it('answers one row a page, in order, with perPage 1', async () => {
          const seen = [];
          for (let page = 1; page <= 6; page++)
            seen.push(...idsOf((await list({ sort: 'updated_at', order: 'desc', page, perPage: 1 })).items));
          expect(seen).to.deep.equal(expectedOrder('updated_at', 'desc'));
        });

        it('answers an empty page, with the right total, just past the end and far past it', async () => {
          for (const [page, perPage] of [
            [4, 2],
            [2, 6],
            [1000, 100],
          ] as const) {
            const answer = await list({ page, perPage });
            expect(answer.items).to.deep.equal([]);
            expect(answer).to.include({ total: 6, page, perPage });
          }
        });

        it('answers an empty page with total 0 when nothing is stored', async () => {
          for (const product of CATALOGUE) await repository().delete(product.id);
          const page = await list();
          expect(page.items).to.deep.equal([]);
          expect(page.total).to.equal(0);
        });

        it('returns whole products', async () => {
          const page = await list({ sort: 'name', order: 'asc', perPage: 1 });
          expect(page.items.map((p) => p.toProps())).to.deep.equal([
            CATALOGUE.find((p) => p.id === id('d'))!.toProps(),
          ]);
        });

        it('sees an update in the sort order it changes', async () => {
          const bolt = CATALOGUE.find((p) => p.id === id('d'))!;
          await repository().update(bolt.id, (current) => current.update({ price: 100 }, at(10)));
          const page = await list({ sort: 'price', order: 'desc', perPage: 1 });
          expect(idsOf(page.items)).to.deep.equal([id('d')]);
          expect(page.items[0]?.version).to.equal(2);
        });
      });

      describe('list filtered by q', () => {
        beforeEach(async () => {
          for (const product of [...CATALOGUE, ...AWKWARD]) await repository().add(product);
        });

        const matches = async (q: string): Promise<string[]> => {
          const page = await list({ q });
          expect(page.total, `total for ${JSON.stringify(q)}`).to.equal(page.items.length);
          return idsOf(page.items);
        };

        it('matches case-insensitively, whatever the case of q or of the name', async () => {
          const widgets = [id('a'), id('b'), id('c'), id('108'), id('109'), id('10a')];
          for (const q of ['widget', 'WIDGET', 'wIdGeT']) expect(await matches(q)).to.have.members(widgets);
        });

        it('matches anywhere in the name: start, middle and end', async () => {
          expect(await matches('blue')).to.have.members([id('108')]);
          expect(await matches('DGE')).to.have.members([
            id('a'),
            id('b'),
            id('c'),
            id('e'),
            id('f'),
            id('108'),
            id('109'),
            id('10a'),
          ]);
          expect(await matches('Ol')).to.have.members([id('d')]);
          expect(await matches('TRY')).to.have.members([id('10a')]);
          expect(await matches('Blue Widget')).to.have.members([id('108')]);
        });

        it('answers an empty page, total 0, when nothing matches', async () => {
          const page = await list({ q: 'zzz' });
          expect(page.items).to.deep.equal([]);
          expect(page.total).to.equal(0);
        });

        it('matches % literally, not as "anything"', async () => {
          expect(await matches('%')).to.have.members([id('101')]);
          expect(await matches('0%')).to.have.members([id('101')]);
          expect(await matches('1%0')).to.deep.equal([]);
          expect(await matches('100')).to.have.members([id('101'), id('102')]);
        });

        it('matches _ literally, not as "any one character"', async () => {
          expect(await matches('_')).to.have.members([id('103'), id('107')]);
          expect(await matches('e_c')).to.have.members([id('103')]);
          expect(await matches('snake_')).to.have.members([id('103')]);
        });

        it('matches ! literally, even before a wildcard character or at the end', async () => {
          expect(await matches('!')).to.have.members([id('105'), id('107')]);
          expect(await matches('ow!')).to.have.members([id('105')]);
          expect(await matches('!_')).to.have.members([id('107')]);
          expect(await matches('!%')).to.deep.equal([]);
          expect(await matches('!!')).to.deep.equal([]);
        });

        it('matches *, ?, [, ] and ^ literally', async () => {
          expect(await matches('*')).to.have.members([id('10b')]);
          expect(await matches('2*3')).to.have.members([id('10b')]);
          expect(await matches('?')).to.have.members([id('10c')]);
          expect(await matches('HY?')).to.have.members([id('10c')]);
          expect(await matches('[')).to.have.members([id('10d')]);
          expect(await matches(']')).to.have.members([id('10d')]);
          expect(await matches('[lIMITED]')).to.have.members([id('10d')]);
          expect(await matches('[a-z]')).to.deep.equal([]);
          expect(await matches('^')).to.have.members([id('10e')]);
          expect(await matches('[^a]')).to.deep.equal([]);
        });

        it('sorts the matches and pages within them, counting only the matches', async () => {
          // "widget" by price asc: WIDGET Pro 3, Widget …a 5, Blue Widget 7, Widget …b 10, Widget …c 10, widgetry 11.
          const pages = [];
          for (let page = 1; page <= 3; page++)
            pages.push(await list({ q: 'widget', sort: 'price', order: 'asc', page, perPage: 4 }));
          expect(pages.map((p) => idsOf(p.items))).to.deep.equal([
            [id('109'), id('a'), id('108'), id('b')],
            [id('c'), id('10a')],
            [],
          ]);
          for (const page of pages) expect(page.total).to.equal(6);
        });

        it('sorts the matches by created_at desc, ties by id desc', async () => {
          // "widget" by created_at: t6 …109, t5 …108, t2 …b, t1: …10a, …c, t0 …a.
          const page = await list({ q: 'WiDgEt', sort: 'created_at', order: 'desc' });
          expect(idsOf(page.items)).to.deep.equal([id('109'), id('108'), id('b'), id('10a'), id('c'), id('a')]);
        });

        it('sorts the matches by name, ties by id (compared within one case, whatever the collation)', async () => {
          const page = await list({ q: 'dget', sort: 'name', order: 'desc' });
          expect(page.total).to.equal(8);
          // Gadget e, f and Widget a, b, c by name desc, ties by id desc.
          const sameCase = [id('a'), id('b'), id('c'), id('e'), id('f')];
          expect(idsOf(page.items.filter((p) => sameCase.includes(p.id)))).to.deep.equal([
            id('c'),
            id('b'),
            id('a'),
            id('f'),
            id('e'),
          ]);
        });
      });
    });

    describe(`${BIG.toLocaleString('en')} products that tie a lot`, function () {
      let storage: ProductStorage;
      let all: Product[] = [];

      before(async function () {
        this.timeout(120_000);
        all = bigCatalogue();
        storage = await subject.fresh();
        const started = performance.now();
        await storage.addMany(all);
        console.log(`      (${all.length} products stored in ${Math.round(performance.now() - started)} ms)`);
      });

      after(async () => {
        // Leave the shared database as the other suites expect it: empty.
        await subject.fresh();
      });

      /** Every page of `query` at 100 a page, then the first page past the end. */
      async function walk(
        query: Omit<ProductListQuery, 'page' | 'perPage'>,
        expectedTotal: number,
      ): Promise<Product[]> {
        const seen: Product[] = [];
        const pages = Math.ceil(expectedTotal / 100);
        for (let page = 1; page <= pages; page++) {
          const answer = await storage.repository.list({ ...query, page, perPage: 100 });
          expect(answer.total, `total on page ${page}`).to.equal(expectedTotal);
          expect(answer.items.length, `rows on page ${page}`).to.equal(
            page < pages ? 100 : expectedTotal - (pages - 1) * 100,
          );
          seen.push(...answer.items);
        }
        const past = await storage.repository.list({ ...query, page: pages + 1, perPage: 100 });
        expect(past.items).to.deep.equal([]);
        expect(past.total).to.equal(expectedTotal);
        return seen;
      }

      function expectEachOnceInOrder(
        seen: readonly Product[],
        expected: readonly Product[],
        sort: KeyedSort,
        order: SortOrder,
      ): void {
        expect(seen.length).to.equal(expected.length);
        const ids = new Set(seen.map((p) => p.id));
        expect(ids.size, 'distinct ids seen').to.equal(expected.length);
        for (const product of expected) if (!ids.has(product.id)) expect.fail(`${product.id} was never seen`);
        const sign = order === 'asc' ? 1 : -1;
        for (let n = 1; n < seen.length; n++) {
          if (sign * compareBy(sort, seen[n - 1]!, seen[n]!) >= 0) {
            expect.fail(`rows ${n - 1} and ${n} are out of ${sort} ${order} order: ${seen[n - 1]!.id}, ${seen[n]!.id}`);
          }
        }
      }

      for (const [sort, order] of [
        ['price', 'asc'],
        ['created_at', 'desc'],
        ['name', 'desc'],
        ['updated_at', 'asc'],
      ] as const) {
        it(`walks every page of ${sort} ${order} at 100 a page, seeing every product exactly once, in order`, async function () {
          this.timeout(60_000);
          expectEachOnceInOrder(await walk({ sort, order }, BIG), all, sort, order);
        });
      }

      it('walks every page of a search, seeing every match exactly once, in order', async function () {
        this.timeout(60_000);
        // "em 3" is in "Item 3" and "Item 30" … "Item 36": 8 of the 37 names.
        const expected = all.filter((p) => p.name.toLowerCase().includes('em 3'));
        expect(expected.length).to.be.greaterThan(2000);
        expectEachOnceInOrder(
          await walk({ q: 'EM 3', sort: 'updated_at', order: 'desc' }, expected.length),
          expected,
          'updated_at',
          'desc',
        );
      });
    });
  });
}
