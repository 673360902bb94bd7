import { expect } from 'chai';
import type { ProductSortField } from '../../support/resources/productCatalogue.js';
import { productRows, type ProductRows } from '../../support/resources/product.js';
import { ListResources } from '../../../src/application/resources/ListResources.js';
import type { Product } from '../../../src/domain/product/Product.js';
import type { ProductListQuery } from '../../support/resources/productCatalogue.js';
import { CATALOGUE, expectedOrder, ORDERS, SORTS } from '../../support/resources/productCatalogue.js';

describe('ListResources (over products)', () => {
  let products: ProductRows;
  let listProducts: ListResources<Product, ProductSortField>;

  const idsOf = (items: readonly Product[]): string[] => items.map((p) => p.id);
  const query = (overrides: Partial<Omit<ProductListQuery, 'q'>> = {}) => ({
    page: 1,
    perPage: 20,
    sort: 'created_at' as const,
    order: 'desc' as const,
    ...overrides,
  });

  beforeEach(async () => {
    products = productRows();
    listProducts = new ListResources(products);
    for (const product of CATALOGUE) await products.add(product);
  });

  for (const sort of SORTS) {
    for (const order of ORDERS) {
      it(`sorts by ${sort} ${order}, ties broken by id ${order}`, async () => {
        const page = await listProducts.execute(query({ sort, order }));
        expect(idsOf(page.items)).to.deep.equal(expectedOrder(sort, order));
        expect(page.total).to.equal(6);
      });
    }
  }

  it('pages through the sorted list without repeating or skipping a row, with the total on every page', async () => {
    const pages = [];
    for (let page = 1; page <= 3; page++)
      pages.push(await listProducts.execute(query({ page, perPage: 4, sort: 'price', order: 'asc' })));
    expect(pages.map((p) => p.items.length)).to.deep.equal([4, 2, 0]);
    expect(pages.flatMap((p) => idsOf(p.items))).to.deep.equal(expectedOrder('price', 'asc'));
    expect(pages.map((p) => ({ total: p.total, page: p.page, perPage: p.perPage }))).to.deep.equal([
      { total: 6, page: 1, perPage: 4 },
      { total: 6, page: 2, perPage: 4 },
      { total: 6, page: 3, perPage: 4 },
    ]);
  });

  it('answers an empty page far past the end, still with the total', async () => {
    const page = await listProducts.execute(query({ page: 50, perPage: 100 }));
    expect(page.items).to.deep.equal([]);
    expect(page).to.include({ total: 6, page: 50, perPage: 100 });
  });

  it('answers an empty page with total 0 when there are no products', async () => {
    const page = await new ListResources(productRows()).execute(query());
    expect(page.items).to.deep.equal([]);
    expect(page.total).to.equal(0);
  });

  it('returns whole products', async () => {
    const page = await listProducts.execute(query({ sort: 'name', order: 'asc', perPage: 1 }));
    expect(page.items.map((p) => p.toProps())).to.deep.equal([CATALOGUE.find((p) => p.name === 'Bolt')!.toProps()]);
  });

  it('ignores a search term smuggled into its input: a list is never filtered', async () => {
    const smuggled = { ...query(), q: 'widget' };
    const page = await listProducts.execute(smuggled);
    expect(page.total).to.equal(6);
  });
});
